package org.fraudpipe.tools;

import org.fraudpipe.job.cli.CommandLines;
import org.fraudpipe.job.cli.JobCommand;
import org.fraudpipe.job.savepoint.migrate.SavepointCommand;
import org.fraudpipe.job.topology.JobEnvironment;
import org.fraudpipe.parity.cli.ParityCommand;
import org.fraudpipe.tools.advise.AdviseCommand;
import org.fraudpipe.tools.cli.FeaturesCommand;
import org.fraudpipe.tools.cli.KafkaCommand;
import org.fraudpipe.tools.cli.ObjectStoreCommand;
import org.fraudpipe.tools.cli.ReplayCommand;
import org.fraudpipe.tools.cli.SimulateCommand;
import org.fraudpipe.tools.cli.TrainCommand;
import org.fraudpipe.tools.demo.DemoCommand;
import org.fraudpipe.tools.model.ModelCommand;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * {@code ./fraud}: the one entry point of the operator's commands. The streaming job's and the
 * parity check's own command lines ({@link JobCommand}, {@link ParityCommand}, {@link
 * SavepointCommand}) live with them, because they are also the entry points of their cluster jars;
 * this class only puts every command under one name.
 */
@Command(
        name = "./fraud",
        mixinStandardHelpOptions = true,
        versionProvider = FraudCli.Version.class,
        description =
                "Real-time fraud feature pipeline: local runtime, simulator, streaming job,"
                        + " deterministic replay, parity, lateness advice, demo, training and savepoint"
                        + " migration.",
        subcommands = {
            KafkaCommand.class,
            ObjectStoreCommand.class,
            SimulateCommand.class,
            TrainCommand.class
        })
public final class FraudCli implements Runnable {

    static final String ROOT = CommandLines.ROOT;

    /** The exit code of a usage error, for every command. */
    public static final int EXIT_USAGE = CommandLines.EXIT_USAGE;

    @CommandLine.Spec CommandLine.Model.CommandSpec spec;

    public static void main(String[] args) {
        // Every command's Flink runs in this JVM: its file systems (s3p://, s3a:// with the
        // plugins and FLINK_CONF_DIR the launcher passes) as a cluster would set them up.
        JobEnvironment.initializeFileSystems();
        System.exit(commandLine().execute(args));
    }

    /**
     * The configured command line; tests execute commands through it exactly as the launcher does.
     */
    public static CommandLine commandLine() {
        CommandLine cl = new CommandLine(new FraudCli());
        // Options generated from JobOption: these commands are built, not annotated.
        cl.addSubcommand("job", JobCommand.commandLine());
        cl.addSubcommand("replay", ReplayCommand.commandLine());
        cl.addSubcommand("parity", ParityCommand.commandLine());
        cl.addSubcommand("advise", AdviseCommand.commandLine());
        cl.addSubcommand("demo", DemoCommand.commandLine());
        cl.addSubcommand("features", FeaturesCommand.commandLine());
        cl.addSubcommand("savepoint", SavepointCommand.commandLine());
        cl.addSubcommand("model", ModelCommand.commandLine());
        cl.addSubcommand("soak", org.fraudpipe.tools.soak.SoakCommand.commandLine());
        cl.addSubcommand("rehearsal", org.fraudpipe.tools.rehearsal.RehearsalCommand.commandLine());
        // picocli asks the command line that execute() runs on, this one, for the handler of every
        // subcommand's usage errors: one place, one style (CommandLines, shared with the cluster
        // jars' entry points and ./fraud bench). Footers: examples never wrapped.
        CommandLines.install(cl);
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
