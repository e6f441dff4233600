package org.fraudpipe.job.savepoint;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import org.apache.flink.state.api.OperatorIdentifier;
import org.fraudpipe.job.topology.Uids;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The job's start-up check of a savepoint to restore from, without the State Processor API: the
 * operator ids it derives are Flink's, and the committed first-release savepoint is refused while
 * the current one passes.
 */
class SavepointGuardTest {

    private static String fixture(String name) throws Exception {
        return Path.of(
                        SavepointGuardTest.class
                                .getResource("/savepoints/" + name + "/_metadata")
                                .toURI())
                .getParent()
                .toString();
    }

    @ParameterizedTest
    @ValueSource(strings = {Uids.FEATURE_WINDOW_V1, Uids.FEATURE_WINDOW, "x", "ünïcödé uid"})
    void operatorIdsAreTheOnesFlinkDerivesFromAUid(String uid) {
        assertThat(SavepointGuard.operatorIdOf(uid))
                .isEqualTo(OperatorIdentifier.forUid(uid).getOperatorId());
    }

    @Test
    void aFirstReleaseSavepointNeedsMigrationAndIsRefusedNamingTheCommand() throws Exception {
        String v1 = fixture("upgrade-v1");
        assertThat(SavepointGuard.needsMigration(v1)).isTrue();
        assertThatThrownBy(() -> SavepointGuard.refuseUnmigrated(v1))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining(v1)
                .hasMessageContaining("./fraud savepoint migrate --from " + v1);
    }

    @Test
    void aSavepointOfThisBuildNeedsNoMigration() throws Exception {
        String v2 = fixture("upgrade-v2");
        assertThat(SavepointGuard.needsMigration(v2)).isFalse();
        assertThatCode(() -> SavepointGuard.refuseUnmigrated(v2)).doesNotThrowAnyException();
    }
}
