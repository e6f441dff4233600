package org.fraudpipe.tools.export;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.fraudpipe.job.testing.LatenessFixture.W12_00;
import static org.fraudpipe.job.testing.LatenessFixture.W12_10;
import static org.fraudpipe.job.testing.LatenessFixture.at;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.fraudpipe.job.testing.LatenessFixture;
import org.fraudpipe.schemas.avro.FeatureRecord;
import org.fraudpipe.schemas.avro.Timing;
import org.fraudpipe.scoring.data.LabelledFeaturesJson;
import org.fraudpipe.scoring.data.LabelledWindow;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The as-served export's choice and labelling of served panes, without a replay: the panes are the
 * ones the job serves for {@link LatenessFixture} (checked for real in {@code
 * AsServedFeatureExportIT}).
 */
class AsServedFeatureExportTest {

    private static final Duration WINDOW = Duration.ofMinutes(10);
    private static final Instant FIRED = at("12:10:04.999");

    @TempDir Path tmp;

    private TrainingFeatureExport.Result ideal;

    @BeforeEach
    void idealOfTheFixture() throws Exception {
        Path file = LatenessFixture.write(tmp);
        ideal =
                new TrainingFeatureExport(WINDOW, Duration.ofMinutes(5))
                        .compute(file, LatenessFixture.labelsOf(file));
    }

    private static FeatureRecord pane(
            String user,
            Instant start,
            long count,
            long sum,
            long max,
            int devices,
            int merchants,
            int revision,
            Timing timing,
            Instant watermark) {
        return FeatureRecord.newBuilder()
                .setUserId(user)
                .setWindowStart(start)
                .setWindowEnd(start.plus(WINDOW))
                .setTxCount(count)
                .setAmountSum(sum)
                .setAmountMax(max)
                .setDistinctDevices(devices)
                .setDistinctMerchants(merchants)
                .setDistinctCountries(1)
                .setRevision(revision)
                .setTiming(timing)
                .setLateRecordsIncluded(revision)
                .setEmittedAt(watermark)
                .setWatermark(watermark)
                .build();
    }

    private static final FeatureRecord BOB_REVISION_1 =
            pane("bob", W12_00, 2, 750, 500, 1, 2, 1, Timing.LATE, FIRED);

    /** What the job serves for the fixture, in no particular order (revision 1 before 0). */
    private static List<FeatureRecord> served() {
        Instant end = LabelledFeaturesJson.END_OF_INPUT;
        return List.of(
                pane("erin", W12_10, 1, 100, 100, 1, 1, 0, Timing.ON_TIME, end),
                BOB_REVISION_1,
                pane("alice", W12_00, 1, 1000, 1000, 1, 1, 0, Timing.ON_TIME, FIRED),
                pane("bob", W12_00, 1, 500, 500, 1, 1, 0, Timing.ON_TIME, FIRED),
                pane("carol", W12_00, 1, 300, 300, 1, 1, 0, Timing.ON_TIME, FIRED),
                pane("dave", W12_10, 1, 300, 300, 1, 1, 0, Timing.ON_TIME, end));
    }

    @Test
    void lastRevisionOfEachServedWindowLabelledAsInTheIdeal() {
        AsServedFeatureExport.Result r = AsServedFeatureExport.label(ideal, served(), 1, 2);

        assertThat(r.windows())
                .extracting(w -> w.features().getUserId() + "@" + w.features().getWindowStart())
                .containsExactly(
                        "alice@" + W12_00,
                        "bob@" + W12_00,
                        "carol@" + W12_00,
                        "dave@" + W12_10,
                        "erin@" + W12_10);
        // The upsert reader's value: the highest revision, pane fields as served.
        assertThat(r.windows().get(1).features()).isEqualTo(BOB_REVISION_1);
        // Labels: those of the same window in the ideal export.
        for (LabelledWindow w : r.windows()) {
            LabelledWindow i =
                    ideal.windows().stream()
                            .filter(x -> x.features().getUserId().equals(w.features().getUserId()))
                            .filter(
                                    x ->
                                            x.features()
                                                    .getWindowStart()
                                                    .equals(w.features().getWindowStart()))
                            .findFirst()
                            .orElseThrow();
            assertThat(w.fraud()).as("%s", w.features().getUserId()).isEqualTo(i.fraud());
        }
        assertThat(r.windows().get(0).fraud()).isTrue();

        // alice's served value lacks the too-late t9; bob@13:00 (quarantined) and frank@12:00
        // (too late, fraudulent) were never served.
        assertThat(r.summary())
                .isEqualTo(
                        new AsServedFeatureExport.Summary(ideal.summary(), 5, 1, 5, 1, 2, 1, 1, 2));
    }

    @Test
    void aServedWindowWithoutIdealValueIsABug() {
        FeatureRecord ghost = pane("zoe", W12_00, 1, 1, 1, 1, 1, 0, Timing.ON_TIME, FIRED);

        assertThatThrownBy(() -> AsServedFeatureExport.label(ideal, List.of(ghost), 0, 0))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("served window (zoe, 2026-11-28T12:00:00Z)");
    }

    @Test
    void twoPanesOfOneRevisionAreABug() {
        assertThatThrownBy(
                        () ->
                                AsServedFeatureExport.lastRevisions(
                                        List.of(BOB_REVISION_1, BOB_REVISION_1)))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining(
                        "(bob, 2026-11-28T12:00:00Z) was served twice with revision 1");
    }
}
