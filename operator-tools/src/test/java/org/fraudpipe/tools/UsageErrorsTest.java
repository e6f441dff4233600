package org.fraudpipe.tools;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.fraudpipe.job.testing.Cli;
import org.fraudpipe.tools.testing.Fraud;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * Every {@code ./fraud} command answers a usage error the same way: one line saying what is wrong
 * ({@code <command>: <message>}), one line saying where the options are, exit code 2; never the
 * whole help, never a stack trace. Picocli's own errors and the commands' own checks alike.
 */
class UsageErrorsTest {

    @TempDir Path dir;

    /**
     * Every command of the tree, by its words below {@code ./fraud}: [kafka, start], [parity]...
     */
    private static List<List<String>> commands(CommandLine cl, List<String> path) {
        List<List<String>> all = new ArrayList<>();
        if (!path.isEmpty()) {
            all.add(path);
        }
        cl.getSubcommands()
                .forEach(
                        (name, sub) -> {
                            List<String> p = new ArrayList<>(path);
                            p.add(name);
                            all.addAll(commands(sub, p));
                        });
        return all;
    }

    private static void assertUsageError(Cli.Run r, String command, String message) {
        assertThat(r.exitCode()).as("exit code of %s; stderr:%n%s", command, r.err()).isEqualTo(2);
        List<String> lines = r.err().lines().toList();
        assertThat(lines)
                .as("stderr of %s", command)
                .hasSize(2)
                .first()
                .asString()
                .startsWith(command + ": ")
                .contains(message);
        assertThat(lines.get(1)).isEqualTo("(./fraud " + command + " --help lists the options)");
        assertThat(r.out()).as("no help on stdout").isEmpty();
    }

    @Test
    void picocliErrorsOfEveryCommandAreOneLineAndAHint() {
        List<List<String>> all = commands(FraudCli.commandLine(), List.of());
        assertThat(all)
                .extracting(p -> String.join(" ", p))
                .contains(
                        "kafka start",
                        "kafka stop",
                        "kafka status",
                        "savepoint migrate",
                        "replay",
                        "parity",
                        "job",
                        "demo",
                        "features",
                        "simulate",
                        "train");
        for (List<String> command : all) {
            List<String> args = new ArrayList<>(command);
            args.add("--no-such-option");
            String name = String.join(" ", command);
            Cli.Run r = Fraud.fraud(args.toArray(String[]::new));
            // Picocli names missing required options before unknown ones.
            assertUsageError(
                    r,
                    name,
                    r.err().contains("Missing required")
                            ? "Missing required option"
                            : "Unknown option: '--no-such-option'");
        }
    }

    /**
     * A command that cannot do what it was asked says why and what to do in one line, exit code 2:
     * no stack trace around the message (the local broker's data directory of the other mode used
     * to print one).
     */
    @Test
    void aRefusalIsOneLineWithTheFix() throws Exception {
        Path secured = Files.createDirectories(dir.resolve("secured").resolve("security"));
        Cli.Run plain = Fraud.fraud("kafka", "start", "--data-dir", secured.getParent().toString());
        assertRefusal(plain, "kafka start", "holds a secured broker", "start it with --secure");

        Path plaintext = dir.resolve("plaintext");
        Files.createDirectories(plaintext.resolve("logs"));
        Files.writeString(plaintext.resolve("logs").resolve("meta.properties"), "");
        Cli.Run secure =
                Fraud.fraud("kafka", "start", "--secure", "--data-dir", plaintext.toString());
        assertRefusal(
                secure, "kafka start", "holds a plaintext broker's data", "new data directory");
    }

    private static void assertRefusal(Cli.Run r, String command, String... says) {
        assertThat(r.exitCode()).as("exit code of %s; stderr:%n%s", command, r.err()).isEqualTo(2);
        assertThat(r.err().lines().toList())
                .as("stderr of %s", command)
                .singleElement()
                .asString()
                .startsWith(command + ": ")
                .contains(says);
        assertThat(r.out()).isEmpty();
    }

    @Test
    void replayAndParityNoLongerPrintTheirHelpAfterAMistake() throws Exception {
        assertUsageError(Fraud.fraud("replay", "--input"), "replay", "Missing required parameter");
        Path tx = Files.writeString(dir.resolve("tx.jsonl"), "");
        String out = dir.resolve("out").toString();
        assertUsageError(
                Fraud.fraud("replay", "--input", tx.toString(), "--output", out, "--window", "5x"),
                "replay",
                "--window-size '5x' is not a duration");
        assertUsageError(Fraud.fraud("parity", "--window-size", "10"), "parity", "'10'");
    }

    @Test
    void aDayThatIsNotADaySaysWhichOptionAndTheForm() {
        for (String option : List.of("--date", "--from", "--to")) {
            Cli.Run r =
                    Fraud.fraud("parity", option, "yesterday", "--report", "r", "--archive", "a");
            assertUsageError(
                    r,
                    "parity",
                    "Invalid value for option '"
                            + option
                            + "': 'yesterday' is not a day: use YYYY-MM-DD, e.g. 2026-11-28");
            assertThat(r.err()).doesNotContain("DateTimeParseException");
        }
    }

    @Test
    void anInstantThatIsNotAnInstantSaysTheForm() {
        Cli.Run r =
                Fraud.fraud(
                        "simulate", "--start", "yesterday", "--out", dir.resolve("tx").toString());
        assertUsageError(
                r,
                "simulate",
                "Invalid value for option '--start': 'yesterday' is not an ISO-8601 UTC instant"
                        + " like 2026-11-28T00:00:00Z");
        assertThat(r.err()).doesNotContain("Exception");
    }

    @Test
    void parityNamesEveryMissingRequiredOptionAtOnce() {
        assertUsageError(
                Fraud.fraud("parity"),
                "parity",
                "missing --report DIR and --archive ROOT (or --transactions PATH with --served"
                        + " PATH)");
        assertUsageError(
                Fraud.fraud("parity", "--from", "2026-11-28"),
                "parity",
                "missing --report DIR, --archive ROOT (or --transactions PATH with --served PATH)"
                        + " and --to YYYY-MM-DD (with --from)");
        assertUsageError(
                Fraud.fraud("parity", "--archive", "a"),
                "parity",
                "missing --report DIR and --date YYYY-MM-DD or --from/--to (which days of"
                        + " --archive)");
        assertUsageError(
                Fraud.fraud("parity", "--served", "f.jsonl", "--report", "r"),
                "parity",
                "missing --transactions PATH (with --served)");
    }

    @Test
    void parityConflictsAreUsageErrorsToo() {
        assertUsageError(
                Fraud.fraud(
                        "parity",
                        "--date",
                        "2026-11-28",
                        "--from",
                        "2026-11-28",
                        "--to",
                        "2026-11-29",
                        "--archive",
                        "a",
                        "--report",
                        "r"),
                "parity",
                "give either --date or --from/--to, not both");
        assertUsageError(
                Fraud.fraud(
                        "parity",
                        "--from",
                        "2026-11-29",
                        "--to",
                        "2026-11-28",
                        "--archive",
                        "a",
                        "--report",
                        "r"),
                "parity",
                "--to 2026-11-28 is before --from 2026-11-29");
    }

    @Test
    void commandsOwnChecksAnswerLikePicocli() throws Exception {
        assertUsageError(
                Fraud.fraud("kafka", "start", "--partitions", "0", "--data-dir", dir.toString()),
                "kafka start",
                "--partitions must be at least 1, was 0");
        assertUsageError(
                Fraud.fraud("job", "--window-size", "soon"),
                "job",
                "--window-size 'soon' is not a duration");
        assertUsageError(
                Fraud.fraud(
                        "savepoint",
                        "migrate",
                        "--from",
                        "a",
                        "--to",
                        dir.resolve("b").toString(),
                        "--parallelism",
                        "0"),
                "savepoint migrate",
                "--parallelism must be at least 1, was 0");
        assertUsageError(
                Fraud.fraud("demo", "--users", "0", "--dir", dir.resolve("run").toString()),
                "demo",
                "--users");
        assertUsageError(
                Fraud.fraud("train", "--features", "f", "--out", "o", "--feature-semantics", "z"),
                "train",
                "--feature-semantics must be ideal or as-served, got z");
        Path tx = Files.writeString(dir.resolve("tx.jsonl"), "");
        assertUsageError(
                Fraud.fraud(
                        "features",
                        "--transactions",
                        tx.toString(),
                        "--out",
                        dir.resolve("f.jsonl").toString(),
                        "--allowed-lateness",
                        "1m"),
                "features",
                "--allowed-lateness only applies to --semantics as-served");
        assertUsageError(
                Fraud.fraud("simulate", "--duration", "5x", "--out", "x"),
                "simulate",
                "'5x' is not a duration");
    }

    @Test
    void aMistypedCommandOrOptionGetsASuggestion() {
        assertUsageError(
                Fraud.fraud("kafka", "restart"),
                "kafka",
                "Unmatched argument at index 1: 'restart' (did you mean start");
        assertUsageError(Fraud.fraud("demo", "--user", "5"), "demo", "(did you mean --users?)");
    }
}
