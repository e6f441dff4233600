package org.fraudpipe.tools.soak;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Which faults' recoveries are their own: no other fault under way during their outage. */
class SoakReportTest {

    private static Nemesis.Fault fault(FaultKind kind, long start, long end) {
        return new Nemesis.Fault(
                kind, Instant.ofEpochSecond(start), Instant.ofEpochSecond(end), "");
    }

    @Test
    void aFaultIsAloneOnlyWhenNoOtherWasUnderWayBeforeItRecovered() {
        Nemesis.Fault kill = fault(FaultKind.JOB_KILL, 100, 110);
        Nemesis.Fault stallDuringRecovery = fault(FaultKind.NETWORK_STALL, 115, 118);
        Nemesis.Fault cutLongBefore = fault(FaultKind.NETWORK_CUT, 10, 20);
        Nemesis.Fault registryBefore = fault(FaultKind.REGISTRY_DOWN, 90, 101);
        List<Nemesis.Fault> all = List.of(kill, stallDuringRecovery, cutLongBefore);

        assertThat(SoakReport.aloneDuring(kill, 112_000, all)).as("recovered first").isTrue();
        assertThat(SoakReport.aloneDuring(kill, 116_000, all)).as("a stall began").isFalse();
        assertThat(SoakReport.aloneDuring(cutLongBefore, 21_000, all)).isTrue();
        assertThat(SoakReport.aloneDuring(kill, 112_000, List.of(kill, registryBefore)))
                .as("another still under way when it began")
                .isFalse();
    }
}
