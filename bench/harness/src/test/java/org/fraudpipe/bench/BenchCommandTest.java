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
        CommandLine cl = new CommandLine(new BenchCommand());
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
        Outcome o = run("--suites", "latency");
        assertThat(o.exitCode()).isEqualTo(2);
        assertThat(o.err()).contains("unknown suite 'latency'");
    }
}
