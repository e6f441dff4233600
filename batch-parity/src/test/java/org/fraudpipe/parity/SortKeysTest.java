package org.fraudpipe.parity;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

class SortKeysTest {

    @Test
    void aKeyOfOneIdentityIsOneGroupAsItCame() {
        List<String> all = List.of("u1:a", "u1:b", "u1:c");
        assertThat(SortKeys.groups(all, userOf())).containsExactly(all);
    }

    @Test
    void aCollisionIsRegroupedByTheExactIdentityInItsOrderKeepingInputOrder() {
        // What a judge sees when two users share a fingerprint: their evidence interleaved.
        List<String> all = List.of("u2:a", "u1:b", "u2:c", "u1:d");
        assertThat(SortKeys.groups(all, userOf()))
                .containsExactly(List.of("u1:b", "u1:d"), List.of("u2:a", "u2:c"));
    }

    @Test
    void nothingIsNoGroup() {
        assertThat(SortKeys.groups(List.<String>of(), userOf())).isEmpty();
    }

    @Test
    void fingerprintsTellUsersAndWindowsApart() {
        assertThat(SortKeys.user("u1")).isEqualTo(SortKeys.user("u1"));
        assertThat(SortKeys.user("u1")).isNotEqualTo(SortKeys.user("u2"));
        assertThat(SortKeys.window("u1", 0L)).isNotEqualTo(SortKeys.window("u1", 600_000L));
        assertThat(SortKeys.window("u1", 600_000L)).isNotEqualTo(SortKeys.window("u2", 600_000L));
    }

    private static Function<String, String> userOf() {
        return s -> s.substring(0, s.indexOf(':'));
    }
}
