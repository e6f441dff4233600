package org.fraudpipe.scoring.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * {@code ./fraud} commands that run on the scoring module's classpath (Tribuo included): today
 * {@code train}. The launcher script picks the module by subcommand.
 */
@Command(
        name = "fraud",
        mixinStandardHelpOptions = true,
        description = "Model side of the fraud pipeline: training and ONNX export.",
        subcommands = {TrainCommand.class})
public final class ScoringCli implements Runnable {

    @CommandLine.Spec CommandLine.Model.CommandSpec spec;

    public static void main(String[] args) {
        // Nothing here logs through SLF4J and no binding is on this classpath; Avro's lookup of a
        // logger would otherwise print slf4j's "no providers" warning on every run.
        if (System.getProperty("slf4j.internal.verbosity") == null) {
            System.setProperty("slf4j.internal.verbosity", "ERROR");
        }
        System.exit(commandLine().execute(args));
    }

    /** The configured command line; tests execute commands through it as the launcher does. */
    public static CommandLine commandLine() {
        return new CommandLine(new ScoringCli()).setCaseInsensitiveEnumValuesAllowed(true);
    }

    @Override
    public void run() {
        spec.commandLine().usage(System.out);
    }
}
