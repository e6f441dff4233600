package org.fraudpipe.bench.probe;

/**
 * Ties a runner JVM to the harness that started it: when the process named by the system property
 * {@value #PROPERTY} ends (even by {@code kill -9}), this JVM halts, so no benchmark JVM outlives
 * its harness.
 */
public final class ParentWatch {

    public static final String PROPERTY = "bench.parent.pid";

    private ParentWatch() {}

    /** Starts watching the parent named by {@value #PROPERTY}, if set. */
    public static void fromSystemProperty() {
        String pid = System.getProperty(PROPERTY);
        if (pid == null || pid.isBlank()) {
            return;
        }
        ProcessHandle.of(Long.parseLong(pid.trim()))
                .ifPresentOrElse(
                        parent -> parent.onExit().thenRun(() -> Runtime.getRuntime().halt(3)),
                        () -> Runtime.getRuntime().halt(3));
    }
}
