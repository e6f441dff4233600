package org.fraudpipe.tools.advise;

import static org.assertj.core.api.Assertions.assertThat;
import static org.fraudpipe.tools.testing.Fraud.fraud;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.fraudpipe.job.testing.Cli;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The advisor's numbers are the job's: for every pair of a 3 x 3 grid over three hours of simulated
 * traffic (30 users, 1m windows, so that every bound and lateness changes the fates) with
 * hours-late arrivals, retries, future-dated and malformed records, the too-late records, re-fires
 * (panes of revision 1 or more), windows re-fired, windows and LATE first panes equal what {@code
 * ./fraud replay} with that pair writes (a real MiniCluster through the job's topology). And the
 * archive the replay writes gives the same numbers in archive mode (one partition, no idleness
 * recorded: the same watermark), with the recorded pair marked current.
 */
class AdviseMatchesReplayIT {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final List<String> BOUNDS = List.of("0s", "2s", "10s");
    private static final List<String> LATENESS = List.of("0s", "2m", "30m");

    @TempDir Path tmp;

    @Test
    void everyPairOfTheGridCountsWhatTheReplayWrites() throws Exception {
        Path tx = tmp.resolve("tx.jsonl");
        Cli.Run sim =
                fraud(
                        "simulate",
                        "--users",
                        "30",
                        "--duration",
                        "3h",
                        "--start",
                        "2026-11-28T08:00:00Z",
                        "--tx-per-user-day",
                        "1500",
                        "--hours-late-share",
                        "0.03",
                        "--duplicate-rate",
                        "0.02",
                        "--future-rate",
                        "0.005",
                        "--malformed-rate",
                        "0.01",
                        "--seed",
                        "19",
                        "--out",
                        tx.toString());
        assertThat(sim.exitCode()).as(sim.err()).isZero();

        Path out = tmp.resolve("advice");
        Cli.Run advise =
                fraud(
                        "advise",
                        "--transactions",
                        tx.toString(),
                        "--window-size",
                        "1m",
                        "--bounds",
                        String.join(",", BOUNDS),
                        "--lateness",
                        String.join(",", LATENESS),
                        "--out",
                        out.toString());
        assertThat(advise.exitCode()).as(advise.err()).isIn(0, 1);
        JsonNode advice = AdviceFiles.read(out.resolve(AdviceFiles.JSON));
        assertThat(advice.get("input").get("deadLetters").asLong()).isPositive();
        assertThat(advice.get("input").get("quarantined").asLong()).isPositive();
        JsonNode grid = advice.get("grid");
        assertThat(grid).hasSize(9);

        long anyTooLate = 0;
        long anyRefires = 0;
        Path archive = tmp.resolve("archive");
        for (JsonNode pair : grid) {
            String bound = pair.get("outOfOrderness").asText();
            String lateness = pair.get("allowedLateness").asText();
            Path replayed = tmp.resolve("replay-" + bound + "-" + lateness);
            boolean archiving = bound.equals("2s") && lateness.equals("2m");
            List<String> args =
                    new java.util.ArrayList<>(
                            List.of(
                                    "replay",
                                    "--input",
                                    tx.toString(),
                                    "--output",
                                    replayed.toString(),
                                    "--window-size",
                                    "1m",
                                    "--out-of-orderness",
                                    bound,
                                    "--allowed-lateness",
                                    lateness));
            if (archiving) {
                args.addAll(List.of("--archive", archive.toString()));
            }
            Cli.Run replay = fraud(args.toArray(String[]::new));
            assertThat(replay.exitCode()).as(replay.err()).isZero();
            Counts c = Counts.of(replayed);
            String what = bound + "/" + lateness;
            assertThat(pair.get("tooLate").asLong()).as("too late, %s", what).isEqualTo(c.tooLate);
            assertThat(pair.get("refires").asLong()).as("re-fires, %s", what).isEqualTo(c.refires);
            assertThat(pair.get("windowsRefired").asLong())
                    .as("windows re-fired, %s", what)
                    .isEqualTo(c.windowsRefired);
            assertThat(pair.get("windows").asLong()).as("windows, %s", what).isEqualTo(c.windows);
            assertThat(pair.get("windowsFirstFiredLate").asLong())
                    .as("LATE first panes, %s", what)
                    .isEqualTo(c.lateFirstPanes);
            assertThat(pair.get("panes").asLong()).as("panes, %s", what).isEqualTo(c.panes);
            anyTooLate += c.tooLate;
            anyRefires += c.refires;
        }
        assertThat(anyTooLate).as("the traffic makes records too late").isPositive();
        assertThat(anyRefires).as("the traffic re-fires windows").isPositive();

        // The replay's archive, in archive mode: the same fates, the recorded pair is current.
        Path fromArchive = tmp.resolve("advice-archive");
        Cli.Run archived =
                fraud(
                        "advise",
                        "--archive",
                        archive.toString(),
                        "--date",
                        "2026-11-28",
                        "--bounds",
                        String.join(",", BOUNDS),
                        "--lateness",
                        String.join(",", LATENESS),
                        "--out",
                        fromArchive.toString());
        assertThat(archived.exitCode()).as(archived.err()).isIn(0, 1);
        JsonNode a = AdviceFiles.read(fromArchive.resolve(AdviceFiles.JSON));
        assertThat(a.get("input").get("currentOutOfOrderness").asText()).isEqualTo("2s");
        assertThat(a.get("input").get("currentAllowedLateness").asText()).isEqualTo("2m");
        assertThat(a.get("input").get("idleness").asText()).isEqualTo("none");
        assertThat(a.get("input").get("windowable").asLong())
                .isEqualTo(advice.get("input").get("windowable").asLong());
        for (int i = 0; i < grid.size(); i++) {
            JsonNode f = grid.get(i);
            JsonNode g = a.get("grid").get(i);
            String what =
                    f.get("outOfOrderness").asText() + "/" + f.get("allowedLateness").asText();
            for (String field : List.of("tooLate", "refires", "windows", "windowsFirstFiredLate")) {
                assertThat(g.get(field).asLong())
                        .as("%s, archive vs file, %s", field, what)
                        .isEqualTo(f.get(field).asLong());
            }
            assertThat(g.get("firstResultDelay")).as(what).isEqualTo(f.get("firstResultDelay"));
            assertThat(g.get("current").asBoolean()).as(what).isEqualTo(what.equals("2s/2m"));
        }
    }

    /** What a replay wrote. */
    private record Counts(
            long tooLate,
            long refires,
            long windowsRefired,
            long windows,
            long lateFirstPanes,
            long panes) {

        static Counts of(Path dir) throws Exception {
            long tooLate = 0;
            for (String line : Files.readAllLines(dir.resolve("late.jsonl"))) {
                if (JSON.readTree(line).get("reason").asText().equals("TOO_LATE")) {
                    tooLate++;
                }
            }
            long refires = 0;
            long windows = 0;
            long lateFirst = 0;
            long panes = 0;
            Set<String> refired = new HashSet<>();
            for (String line : Files.readAllLines(dir.resolve("features.jsonl"))) {
                JsonNode f = JSON.readTree(line);
                panes++;
                if (f.get("revision").asInt() >= 1) {
                    refires++;
                    refired.add(f.get("userId").asText() + "@" + f.get("windowStart").asText());
                } else {
                    windows++;
                    if (f.get("timing").asText().equals("LATE")) {
                        lateFirst++;
                    }
                }
            }
            return new Counts(tooLate, refires, refired.size(), windows, lateFirst, panes);
        }
    }
}
