package org.fraudpipe.tools.export;

import static org.assertj.core.api.Assertions.assertThat;
import static org.fraudpipe.job.testing.LatenessFixture.W12_00;
import static org.fraudpipe.job.testing.LatenessFixture.W12_10;
import static org.fraudpipe.job.testing.LatenessFixture.W13_00;
import static org.fraudpipe.tools.testing.Fraud.fraud;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.fraudpipe.job.testing.Cli;
import org.fraudpipe.job.testing.LatenessFixture;
import org.fraudpipe.schemas.avro.FeatureRecord;
import org.fraudpipe.schemas.avro.Timing;
import org.fraudpipe.scoring.data.LabelledFeaturesJson;
import org.fraudpipe.scoring.data.LabelledWindow;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code ./fraud features --semantics as-served} end to end: a real replay (MiniCluster) of {@link
 * LatenessFixture}, against the ideal export of the same file.
 */
class AsServedFeatureExportIT {

    @TempDir Path tmp;

    private static Map<String, LabelledWindow> byWindow(List<LabelledWindow> windows) {
        return windows.stream()
                .collect(
                        Collectors.toMap(
                                w -> w.features().getUserId() + "@" + w.features().getWindowStart(),
                                w -> w,
                                (a, b) -> {
                                    throw new AssertionError("two lines for one window: " + a);
                                },
                                TreeMap::new));
    }

    @Test
    void asServedLeavesOutWhatTheStreamNeverCountedAndKeepsTheIdealLabels() throws Exception {
        Path tx = LatenessFixture.write(tmp);
        Path idealOut = tmp.resolve("out/ideal.jsonl");
        Path servedOut = tmp.resolve("out/served.jsonl");

        Cli.Run ideal =
                fraud("features", "--transactions", tx.toString(), "--out", idealOut.toString());
        Cli.Run served =
                fraud(
                        "features",
                        "--transactions",
                        tx.toString(),
                        "--semantics",
                        "as-served",
                        // the job's defaults, spelled out: the fixture is written for them
                        "--window-size",
                        "10m",
                        "--allowed-lateness",
                        "2m",
                        "--out-of-orderness",
                        "5s",
                        "--future-tolerance",
                        "5m",
                        "--out",
                        servedOut.toString());

        assertThat(ideal.exitCode()).as(ideal.err()).isZero();
        assertThat(served.exitCode()).as(served.err()).isZero();
        assertThat(served.out())
                .contains("wrote " + servedOut + ": 5 windows of 5 users, 1 fraudulent")
                .contains("semantics as-served")
                .contains("10 lines, 1 not valid transactions left out")
                .contains("1 quarantined, 2 too late; each window's last served revision")
                .contains("vs ideal (7 windows, 2 fraudulent): 2 never served (absent here, 1 of")
                .contains("1 served with features that differ from ideal");

        List<LabelledWindow> idealWindows = LabelledFeaturesJson.readAll(idealOut);
        List<LabelledWindow> servedWindows = LabelledFeaturesJson.readAll(servedOut);
        Map<String, LabelledWindow> i = byWindow(idealWindows);
        Map<String, LabelledWindow> s = byWindow(servedWindows);

        // Sorted by user, then window, like the ideal export.
        assertThat(servedWindows)
                .extracting(w -> w.features().getUserId() + "@" + w.features().getWindowStart())
                .containsExactlyElementsOf(s.keySet());
        // Never served: bob's future-dated window (quarantined) and frank's too-late one.
        assertThat(i.keySet()).containsAll(s.keySet());
        assertThat(i.keySet()).contains("bob@" + W13_00, "frank@" + W12_00).hasSize(s.size() + 2);
        assertThat(s).doesNotContainKeys("bob@" + W13_00, "frank@" + W12_00);
        assertThat(i.get("frank@" + W12_00).fraud()).isTrue();

        // The too-late t9 counts in alice's ideal window, not in what the stream served.
        FeatureRecord alice = s.get("alice@" + W12_00).features();
        assertThat(i.get("alice@" + W12_00).features().getTxCount()).isEqualTo(2);
        assertThat(alice.getTxCount()).isEqualTo(1);
        assertThat(alice.getAmountSum()).isEqualTo(1000);
        assertThat(alice.getRevision()).isZero();

        // The last revision: bob's late re-fire, equal to the ideal value.
        FeatureRecord bob = s.get("bob@" + W12_00).features();
        assertThat(bob.getRevision()).isEqualTo(1);
        assertThat(bob.getTiming()).isEqualTo(Timing.LATE);
        assertThat(bob.getTxCount()).isEqualTo(2);
        assertThat(bob.getAmountSum()).isEqualTo(i.get("bob@" + W12_00).features().getAmountSum());
        assertThat(s.get("dave@" + W12_10).features().getWatermark())
                .isEqualTo(LabelledFeaturesJson.END_OF_INPUT);

        // Labels identical wherever a window is in both.
        for (Map.Entry<String, LabelledWindow> e : s.entrySet()) {
            assertThat(e.getValue().fraud()).as(e.getKey()).isEqualTo(i.get(e.getKey()).fraud());
        }
        assertThat(s.get("alice@" + W12_00).fraud()).isTrue();

        // The replay's temporary directory is gone: only the two exports are left.
        try (var files = Files.list(idealOut.getParent())) {
            assertThat(files.map(p -> p.getFileName().toString()))
                    .containsExactlyInAnyOrder("ideal.jsonl", "served.jsonl");
        }
    }
}
