package org.fraudpipe.job.testing;

import java.io.PrintWriter;
import java.io.StringWriter;
import org.fraudpipe.job.cli.FraudCli;
import picocli.CommandLine;

/** Runs {@code ./fraud} commands in the test's JVM, as the launcher runs them, capturing output. */
public final class Cli {

    /** A command's exit code, standard output and standard error. */
    public record Run(int exitCode, String out, String err) {}

    private Cli() {}

    /** {@code ./fraud args...} on the feature job's command line ({@link FraudCli}). */
    public static Run fraud(String... args) {
        CommandLine cli = FraudCli.commandLine();
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        cli.setOut(new PrintWriter(out, true));
        cli.setErr(new PrintWriter(err, true));
        int code = cli.execute(args);
        return new Run(code, out.toString(), err.toString());
    }
}
