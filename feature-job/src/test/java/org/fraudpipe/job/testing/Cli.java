package org.fraudpipe.job.testing;

import java.io.PrintWriter;
import java.io.StringWriter;
import org.fraudpipe.job.cli.CommandLines;
import org.fraudpipe.job.cli.JobCommand;
import org.fraudpipe.job.savepoint.migrate.SavepointCommand;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;

/** Runs commands in the test's JVM, as the launcher runs them, capturing their output. */
public final class Cli {

    /** A command's exit code, standard output and standard error. */
    public record Run(int exitCode, String out, String err) {}

    private Cli() {}

    /**
     * {@code ./fraud args...} for the commands this module owns ({@code job}, {@code savepoint}):
     * the same command lines the launcher puts under {@code ./fraud}.
     */
    public static Run fraud(String... args) {
        CommandLine cli =
                switch (args[0]) {
                    case "job" -> JobCommand.commandLine();
                    case "savepoint" -> SavepointCommand.commandLine();
                    default ->
                            throw new IllegalArgumentException(
                                    "not a feature-job command: " + args[0]);
                };
        // Under a root named like the launcher, with its usage error handler, as FraudCli has it.
        CommandLine root = new CommandLine(CommandSpec.create().name(CommandLines.ROOT));
        root.addSubcommand(args[0], cli);
        CommandLines.install(root);
        return run(root, args);
    }

    /** Executes {@code cli} with {@code args}, capturing what it prints. */
    public static Run run(CommandLine cli, String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        cli.setOut(new PrintWriter(out, true));
        cli.setErr(new PrintWriter(err, true));
        int code = cli.execute(args);
        return new Run(code, out.toString(), err.toString());
    }
}
