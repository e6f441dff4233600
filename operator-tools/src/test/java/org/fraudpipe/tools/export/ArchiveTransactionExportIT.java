package org.fraudpipe.tools.export;

import static org.assertj.core.api.Assertions.assertThat;
import static org.fraudpipe.tools.testing.Fraud.fraud;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.fraudpipe.job.replay.AvroJson;
import org.fraudpipe.job.testing.Cli;
import org.fraudpipe.schemas.avro.TransactionScore;
import org.fraudpipe.scoring.data.LabelledTransaction;
import org.fraudpipe.scoring.data.LabelledTransactionsJson;
import org.fraudpipe.sim.Label;
import org.fraudpipe.sim.LabelJson;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code ./fraud features --per-transaction --archive}: a messy simulation replayed into an archive
 * ({@code ./fraud replay --archive}, the job's own topology), then exported from the archive: the
 * ideal rows are exactly those of the simulator-file export (one definition of ideal), the
 * as-served rows exactly what the job served.
 */
class ArchiveTransactionExportIT {

    @TempDir static Path tmp;

    private static Path tx;
    private static Path labels;
    private static Path out;
    private static Path archive;

    @BeforeAll
    static void replayIntoAnArchive() {
        tx = tmp.resolve("tx.jsonl");
        labels = tmp.resolve("tx.jsonl.labels.jsonl");
        out = tmp.resolve("out");
        archive = tmp.resolve("archive");
        Cli.Run sim =
                fraud(
                        "simulate",
                        "--users",
                        "40",
                        "--duration",
                        "3h",
                        "--tx-per-user-day",
                        "300",
                        "--seed",
                        "3",
                        "--hours-late-share",
                        "0.03",
                        "--duplicate-rate",
                        "0.02",
                        "--future-rate",
                        "0.01",
                        "--fraud-share",
                        "0.05",
                        "--out",
                        tx.toString());
        assertThat(sim.exitCode()).as(sim.err()).isZero();
        Cli.Run replay =
                fraud(
                        "replay",
                        "--input",
                        tx.toString(),
                        "--output",
                        out.toString(),
                        "--archive",
                        archive.toString(),
                        "--allowed-lateness",
                        "2m");
        assertThat(replay.exitCode()).as(replay.err()).isZero();
    }

    @Test
    void idealRowsFromTheArchiveAreTheSimulatorExportsByteForByte() throws Exception {
        Path fromArchive = tmp.resolve("archive-ideal.jsonl");
        Path fromFile = tmp.resolve("file-ideal.jsonl");

        Cli.Run a =
                fraud(
                        "features",
                        "--per-transaction",
                        "--archive",
                        archive.toString(),
                        "--date",
                        "2026-11-28",
                        "--labels",
                        labels.toString(),
                        "--semantics",
                        "ideal",
                        "--out",
                        fromArchive.toString());
        Cli.Run f =
                fraud(
                        "features",
                        "--per-transaction",
                        "--transactions",
                        tx.toString(),
                        "--semantics",
                        "ideal",
                        "--out",
                        fromFile.toString());

        assertThat(a.exitCode()).as(a.err()).isZero();
        assertThat(f.exitCode()).as(f.err()).isZero();
        assertThat(Files.readAllLines(fromArchive)).isNotEmpty();
        assertThat(Files.readAllBytes(fromArchive)).isEqualTo(Files.readAllBytes(fromFile));
        assertThat(a.out()).contains("semantics ideal").contains("judged as by ./fraud parity");
    }

    @Test
    void asServedRowsAreTheFeaturesTheJobServedWithTheirLabels() throws Exception {
        Path served = tmp.resolve("archive-served.jsonl");

        Cli.Run a =
                fraud(
                        "features",
                        "--per-transaction",
                        "--archive",
                        archive.toString(),
                        "--date",
                        "2026-11-28",
                        "--labels",
                        labels.toString(),
                        "--out",
                        served.toString());

        assertThat(a.exitCode()).as(a.err()).isZero();
        assertThat(a.out()).contains("semantics as-served").contains("0 never scored");
        // What the replay served: the first answer of each id (a retry gets the same values).
        Map<String, TransactionScore> firstAnswer = new HashMap<>();
        for (String line : Files.readAllLines(out.resolve("transaction-scores.jsonl"))) {
            TransactionScore s = AvroJson.fromJsonLine(line, TransactionScore.class);
            firstAnswer.merge(
                    s.getTransactionId(),
                    s,
                    (x, y) -> x.getScoredAt().isAfter(y.getScoredAt()) ? y : x);
        }
        Map<String, Boolean> fraudById = new HashMap<>();
        for (Label l : LabelJson.readAll(labels)) {
            fraudById.put(l.transactionId(), l.fraud());
        }
        List<LabelledTransaction> rows = LabelledTransactionsJson.readAll(served);
        assertThat(rows).hasSize(firstAnswer.size());
        long incomplete = 0;
        for (LabelledTransaction row : rows) {
            String id = row.features().getTransactionId();
            assertThat(row.features()).as(id).isEqualTo(firstAnswer.get(id).getFeatures());
            assertThat(row.fraud()).as(id).isEqualTo(fraudById.get(id));
            incomplete += row.features().getHistoryComplete() ? 0 : 1;
        }
        assertThat(incomplete).as("answers the state bound made incomplete").isPositive();
        assertThat(rows.stream().filter(LabelledTransaction::fraud).count()).isPositive();
    }

    @Test
    void theArchiveExportRefusesWhatItCannotHonour() {
        Path target = tmp.resolve("refused.jsonl");
        Cli.Run noLabels = archiveExport("2026-11-28", target);
        assertThat(noLabels.exitCode()).isEqualTo(2);
        assertThat(noLabels.err()).contains("--archive needs --labels FILE");

        Cli.Run asOfArrival =
                archiveExport(
                        "2026-11-28",
                        target,
                        "--labels",
                        labels.toString(),
                        "--semantics",
                        "as-of-arrival");
        assertThat(asOfArrival.exitCode()).isEqualTo(2);
        assertThat(asOfArrival.err()).contains("--semantics as-served");

        Cli.Run lateness =
                archiveExport(
                        "2026-11-28",
                        target,
                        "--labels",
                        labels.toString(),
                        "--allowed-lateness",
                        "5m");
        assertThat(lateness.exitCode()).isEqualTo(2);
        assertThat(lateness.err()).contains("--allowed-lateness does not apply to --archive");

        Cli.Run otherDay = archiveExport("2026-11-30", target, "--labels", labels.toString());
        assertThat(otherDay.exitCode()).isEqualTo(2);
        assertThat(otherDay.err()).contains("missing archive partition").contains("2026-11-30");
        assertThat(target).doesNotExist();
    }

    /** {@code ./fraud features --per-transaction} over the test's archive for {@code date}. */
    private Cli.Run archiveExport(String date, Path out, String... more) {
        List<String> args =
                new ArrayList<>(
                        List.of(
                                "features",
                                "--per-transaction",
                                "--archive",
                                archive.toString(),
                                "--date",
                                date,
                                "--out",
                                out.toString()));
        args.addAll(List.of(more));
        return fraud(args.toArray(String[]::new));
    }
}
