package org.fraudpipe.parity.demo;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** Usage errors stop the demo before anything starts, with exit code 2 and the option's name. */
class DemoCommandTest {

    @TempDir Path dir;

    private record Run(int exit, String err) {}

    private Run run(String... args) {
        StringWriter err = new StringWriter();
        CommandLine cl = DemoCommand.commandLine();
        cl.setErr(new PrintWriter(err, true));
        cl.setOut(new PrintWriter(new StringWriter(), true));
        int exit = cl.execute(args);
        return new Run(exit, err.toString());
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
            assertThat(r.err()).as("message of %s", String.join(" ", args)).contains(args[0]);
        }
        assertThat(Files.exists(runDir)).as("nothing was started or created").isFalse();
    }
}
