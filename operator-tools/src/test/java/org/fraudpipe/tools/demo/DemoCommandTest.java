package org.fraudpipe.tools.demo;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.fraudpipe.job.testing.Cli;
import org.fraudpipe.tools.testing.Fraud;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Usage errors stop the demo before anything starts, with exit code 2 and the option's name. */
class DemoCommandTest {

    @TempDir Path dir;

    private record Run(int exit, String err) {}

    /** {@code ./fraud demo args...}, as the launcher runs it. */
    private Run run(String... args) {
        String[] demo = new String[args.length + 1];
        demo[0] = "demo";
        System.arraycopy(args, 0, demo, 1, args.length);
        Cli.Run r = Fraud.fraud(demo);
        return new Run(r.exitCode(), r.err());
    }

    @Test
    void aBadValueExitsWithTwoNamingTheOptionAndStartsNothing() throws Exception {
        Path runDir = dir.resolve("run");
        for (String[] args :
                new String[][] {
                    {"--users", "0"},
                    {"--speedup", "-1"},
                    {"--duration", "soon"},
                    {"--window-size", "0s"},
                    {"--state-backend", "memory"},
                    {"--allowed-lateness", "-5m"},
                    {"--parallelism", "0"},
                    {"--web-port", "70000"},
                    {"--no-such-option"}
                }) {
            String[] withDir = new String[args.length + 2];
            System.arraycopy(args, 0, withDir, 0, args.length);
            withDir[args.length] = "--dir";
            withDir[args.length + 1] = runDir.toString();
            Run r = run(withDir);
            assertThat(r.exit()).as("exit code of %s", String.join(" ", args)).isEqualTo(2);
            assertThat(r.err().lines().toList())
                    .as("message of %s: one line and the hint", String.join(" ", args))
                    .hasSize(2)
                    .satisfies(
                            l -> assertThat(l.get(0)).startsWith("demo: ").contains(args[0]),
                            l ->
                                    assertThat(l.get(1))
                                            .isEqualTo("(./fraud demo --help lists the options)"));
        }
        assertThat(Files.exists(runDir)).as("nothing was started or created").isFalse();
    }
}
