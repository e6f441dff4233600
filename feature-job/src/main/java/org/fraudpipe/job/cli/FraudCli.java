package org.fraudpipe.job.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * {@code ./fraud} commands that run on the feature-job classpath. The launcher script picks the
 * module (and so the main class) by subcommand; this one serves the local runtime and the streaming
 * job.
 */
@Command(
        name = "fraud",
        mixinStandardHelpOptions = true,
        versionProvider = FraudCli.Version.class,
        description =
                "Real-time fraud feature pipeline: local runtime, simulator, streaming job,"
                        + " deterministic replay, training-feature export and savepoint migration.",
        subcommands = {KafkaCommand.class, SimulateCommand.class})
public final class FraudCli implements Runnable {

    @CommandLine.Spec CommandLine.Model.CommandSpec spec;

    public static void main(String[] args) {
        System.exit(commandLine().execute(args));
    }

    /**
     * The configured command line; tests execute commands through it exactly as the launcher does.
     */
    public static CommandLine commandLine() {
        CommandLine cl = new CommandLine(new FraudCli());
        // Options generated from JobOption: these commands are built, not annotated.
        cl.addSubcommand("features", FeaturesCommand.commandLine());
        cl.addSubcommand("job", JobCommand.commandLine());
        cl.addSubcommand("replay", ReplayCommand.commandLine());
        cl.addSubcommand("savepoint", SavepointCommand.commandLine());
        return cl.setCaseInsensitiveEnumValuesAllowed(true);
    }

    @Override
    public void run() {
        spec.commandLine().usage(System.out);
    }

    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            String v = FraudCli.class.getPackage().getImplementationVersion();
            return new String[] {"fraudpipe " + (v == null ? "(development build)" : v)};
        }
    }
}
