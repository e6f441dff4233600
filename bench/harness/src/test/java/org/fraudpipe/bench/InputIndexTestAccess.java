package org.fraudpipe.bench;

/** An index that knows no window (what an input without the compared windows gives). */
final class InputIndexTestAccess {

    private InputIndexTestAccess() {}

    static InputIndex empty() {
        return InputIndex.build(null, "unused", bytes -> null, java.util.Set.of(), 600_000);
    }
}
