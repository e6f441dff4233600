package org.fraudpipe.tools.testing;

import org.fraudpipe.job.testing.Cli;
import org.fraudpipe.tools.FraudCli;

/**
 * Runs {@code ./fraud} commands in the test's JVM through {@link FraudCli}, as the launcher does.
 */
public final class Fraud {

    private Fraud() {}

    /** {@code ./fraud args...}: exit code, standard output and standard error. */
    public static Cli.Run fraud(String... args) {
        return Cli.run(FraudCli.commandLine(), args);
    }
}
