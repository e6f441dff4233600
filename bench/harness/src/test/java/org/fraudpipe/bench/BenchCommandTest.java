package org.fraudpipe.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * Options that would make a run meaningless are refused before anything starts (no broker, no
 * build): a usage error, exit code 2, naming the option.
 */
class BenchCommandTest {

    private record Outcome(int exitCode, String err) {}

    private static Outcome run(String... args) {
        StringWriter err = new StringWriter();
        CommandLine cl = BenchCommand.commandLine();
        cl.setErr(new PrintWriter(err));
        cl.setOut(new PrintWriter(new StringWriter()));
        int code = cl.execute(args);
        return new Outcome(code, err.toString());
    }

    @Test
    void anEvenNumberOfBurstRunsHasNoMedianAndIsRefused() {
        Outcome o = run("--suites", "burst", "--burst-runs", "2");
        assertThat(o.exitCode()).isEqualTo(2);
        assertThat(o.err()).contains("--burst-runs must be odd");
    }

    @Test
    void aBurstWithoutWarmUpWindowsIsRefused() {
        Outcome o = run("--suites", "burst", "--burst-warm-up-windows", "0");
        assertThat(o.exitCode()).isEqualTo(2);
        assertThat(o.err()).contains("--burst-warm-up-windows positive");
    }

    @Test
    void aVariantOfAnUnknownSystemIsRefused() {
        Outcome o = run("--variant", "x=no-such-system|--score|false", "--systems", "x");
        assertThat(o.exitCode()).isEqualTo(2);
        assertThat(o.err()).contains("--variant wants NAME=BASE");
    }

    @Test
    void anUnknownSuiteIsRefused() {
        Outcome o = run("--suites", "warp");
        assertThat(o.exitCode()).isEqualTo(2);
        assertThat(o.err().lines().toList())
                .as("one line and where the options are, as every ./fraud command")
                .containsExactly(
                        "bench: --suites: unknown suite 'warp'",
                        "(./fraud bench --help lists the options)");
    }

    @Test
    void aBadDurationIsOneLineNotTheWholeHelp() {
        Outcome o = run("--span", "a day");
        assertThat(o.exitCode()).isEqualTo(2);
        assertThat(o.err().lines().toList()).hasSize(2);
        assertThat(o.err()).startsWith("bench: Invalid value for option '--span': 'a day'");
    }

    @Test
    void theHelpSaysFraudBenchAndWhatEachValueIs() {
        CommandLine cl = BenchCommand.commandLine();
        StringWriter help = new StringWriter();
        cl.usage(new PrintWriter(help, true));
        assertThat(help.toString()).startsWith("Usage: ./fraud bench ");
        for (CommandLine.Model.OptionSpec o : cl.getCommandSpec().options()) {
            if (o.arity().max() > 0) {
                assertThat(o.paramLabel()).as(o.longestName()).doesNotStartWith("<");
            }
            if (o.type() == java.time.Duration.class) {
                assertThat(o.paramLabel()).as(o.longestName()).isEqualTo("DURATION");
            }
        }
    }

    @Test
    void theProgressOfARunReadsItsConsumerGroupAndInputFromItsArguments() {
        java.util.List<String> args =
                java.util.List.of(
                        "--input-topic", "in", "--group-id", "g", "--expect-records", "9");
        assertThat(RunnerJvm.argument(args, "--group-id", "--application-id")).isEqualTo("g");
        assertThat(RunnerJvm.argument(args, "--topic.transactions", "--input-topic"))
                .isEqualTo("in");
        assertThat(RunnerJvm.argument(args, "--expect-records")).isEqualTo("9");
        assertThat(RunnerJvm.argument(args, "--nothing")).isNull();
    }

    @Test
    void liveRunsRefuseAnUnknownSystemAndAWindowOfFractionalSeconds() {
        Outcome o = run("--suites", "latency", "--live-systems", "ours,kafka-streams");
        assertThat(o.exitCode()).isEqualTo(2);
        assertThat(o.err()).contains("--live-systems: unknown system 'kafka-streams'");
        o = run("--suites", "live", "--live-window-size", "1500ms");
        assertThat(o.exitCode()).isEqualTo(2);
        assertThat(o.err()).contains("whole seconds for --live-window-size");
    }

    @Test
    void refusesASystemNamedTwice() {
        Outcome o = run("--systems", "ours-rocksdb,kafka-streams,kafka-streams");
        assertThat(o.exitCode()).isEqualTo(2);
        assertThat(o.err())
                .contains("'kafka-streams' is named twice")
                .contains("--variant 'kafka-streams-2=kafka-streams'");
    }
}
