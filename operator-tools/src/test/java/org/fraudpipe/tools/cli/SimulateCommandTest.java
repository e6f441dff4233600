package org.fraudpipe.tools.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.fraudpipe.tools.testing.Fraud.fraud;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.fraudpipe.job.testing.Cli;
import org.fraudpipe.schemas.Topic;
import org.fraudpipe.schemas.json.TransactionJson;
import org.fraudpipe.sim.LabelJson;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SimulateCommandTest {

    @TempDir Path tmp;

    /** Exit code and console output of one command line. */
    private Cli.Run simulate(Path dir, String seed) {
        return fraud(
                "simulate",
                "--users",
                "200",
                "--duration",
                "6h",
                "--seed",
                seed,
                "--malformed-rate",
                "0.01",
                "--out",
                dir.resolve("tx.jsonl").toString());
    }

    @Test
    void sameSeedWritesByteIdenticalFiles() throws Exception {
        Cli.Run a = simulate(tmp.resolve("a"), "7");
        Cli.Run b = simulate(tmp.resolve("b"), "7");
        assertThat(a.exitCode()).as(a.err()).isZero();
        assertThat(b.exitCode()).as(b.err()).isZero();
        for (String name : List.of("tx.jsonl", "tx.jsonl.labels.jsonl")) {
            byte[] first = Files.readAllBytes(tmp.resolve("a").resolve(name));
            assertThat(first).as(name).hasSizeGreaterThan(10_000);
            assertThat(Files.readAllBytes(tmp.resolve("b").resolve(name)))
                    .as(name)
                    .isEqualTo(first);
        }
    }

    @Test
    void differentSeedWritesDifferentFiles() throws Exception {
        assertThat(simulate(tmp.resolve("a"), "7").exitCode()).isZero();
        assertThat(simulate(tmp.resolve("b"), "8").exitCode()).isZero();
        assertThat(Files.readAllBytes(tmp.resolve("b/tx.jsonl")))
                .isNotEqualTo(Files.readAllBytes(tmp.resolve("a/tx.jsonl")));
    }

    @Test
    void writesOneLabelPerIdAndPrintsTheSummary() throws Exception {
        Path labels = tmp.resolve("labels/l.jsonl");
        Cli.Run r =
                fraud(
                        "simulate",
                        "--users",
                        "100",
                        "--duration",
                        "PT3H",
                        "--out",
                        tmp.resolve("tx.jsonl").toString(),
                        "--labels",
                        labels.toString());
        assertThat(r.exitCode()).as(r.err()).isZero();
        List<String> txLines = Files.readAllLines(tmp.resolve("tx.jsonl"));
        List<String> labelLines = Files.readAllLines(labels);
        assertThat(labelLines).isNotEmpty();
        long distinctIds =
                txLines.stream()
                        .map(l -> l.substring(0, l.indexOf("\",\"userId\"")))
                        .distinct()
                        .count();
        assertThat(labelLines).hasSize((int) distinctIds);
        LabelJson.parseLine(labels.toString(), labelLines.get(0), 1);
        TransactionJson.parseValidLine(null, txLines.get(0), 1);
        assertThat(r.out())
                .contains(
                        "records",
                        "users",
                        "fraud",
                        "duplicates",
                        "future-dated",
                        "malformed",
                        "hours-late",
                        "p50",
                        "p95",
                        "p99",
                        "p99.9",
                        "max");
    }

    @Test
    void helpListsTheOptions() {
        Cli.Run r = fraud("simulate", "--help");
        assertThat(r.exitCode()).isZero();
        assertThat(r.out())
                .contains(
                        "--users",
                        "--duration",
                        "--seed",
                        "--out",
                        "--labels",
                        "--malformed-rate",
                        "--bootstrap-servers",
                        "--speedup",
                        "--file",
                        Topic.TRANSACTIONS.defaultName());
    }

    @Test
    void badDurationFailsNamingTheOption() {
        Cli.Run r = fraud("simulate", "--duration", "5x", "--out", tmp.resolve("x").toString());
        assertThat(r.exitCode()).isEqualTo(2);
        assertThat(r.err())
                .contains("Invalid value for option '--duration'", "'5x' is not a duration");
        assertThat(tmp.resolve("x")).doesNotExist();
    }

    @Test
    void outOfRangeRateFailsNamingTheOption() {
        Cli.Run r = fraud("simulate", "--fraud-share", "0.9", "--out", tmp.resolve("x").toString());
        assertThat(r.exitCode()).isEqualTo(2);
        assertThat(r.err()).contains("--fraud-share must be in [0, 0.5], got 0.9");
    }

    @Test
    void withoutOutOrBrokerThereIsNothingToDo() {
        Cli.Run r = fraud("simulate");
        assertThat(r.exitCode()).isEqualTo(2);
        assertThat(r.err()).contains("nothing to do", "--out", "--bootstrap-servers");
    }

    @Test
    void fileDoesNotTakeGenerationOptions() {
        Cli.Run r =
                fraud(
                        "simulate",
                        "--file",
                        "x.jsonl",
                        "--users",
                        "5",
                        "--bootstrap-servers",
                        "localhost:1");
        assertThat(r.exitCode()).isEqualTo(2);
        assertThat(r.err()).contains("--users does not apply with --file");
    }
}
