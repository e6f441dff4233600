package org.fraudpipe.job.cli;

import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.util.concurrent.Callable;
import org.fraudpipe.job.KafkaFeatureJob;
import org.fraudpipe.job.config.JobConfig;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * {@code ./fraud job}: the streaming feature job against Kafka. Run from {@code ./fraud} it
 * executes in a local MiniCluster; submitted with {@code flink run} (main class {@link
 * org.fraudpipe.job.FeatureJob}) it runs on the cluster. The options (generated from {@link
 * org.fraudpipe.job.config.JobOption}) are the same in both cases; the job itself is {@link
 * KafkaFeatureJob}.
 */
@Command(
        name = "job",
        mixinStandardHelpOptions = true,
        description = {
            "Runs the streaming feature job: Kafka transactions -> event-time windows with allowed"
                    + " lateness -> features (upsert, exactly-once), late records and dead letters.",
            "Archives what it receives and writes under --archive-dir (Avro files, committed at"
                    + " checkpoints) for the batch parity check.",
            "Checks at start-up that Kafka, the topics and the schema registry are there."
        })
public final class JobCommand implements Callable<Integer> {

    @CommandLine.Spec CommandLine.Model.CommandSpec spec;

    /**
     * A command line with the job's options, for {@code ./fraud job} and the cluster entry point.
     */
    public static CommandLine commandLine() {
        CommandLine cl = new CommandLine(new JobCommand());
        JobOptions.addTo(cl.getCommandSpec());
        return CommandLines.install(cl);
    }

    @Override
    public Integer call() throws Exception {
        JobConfig config;
        try {
            config = JobOptions.read(spec.commandLine().getParseResult());
        } catch (IllegalArgumentException | UncheckedIOException e) {
            // A bad value or an unreadable --config: a usage error, in one line (exit code 2).
            throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage(), e);
        }
        KafkaFeatureJob job;
        try {
            job = KafkaFeatureJob.prepare(config);
        } catch (IllegalArgumentException | IllegalStateException e) {
            // What the start-up checks found (model, archive, Kafka, registry): their messages
            // name the problem and the fix; a stack trace would only bury them.
            PrintWriter err = spec.commandLine().getErr();
            err.println("job: cannot start: " + e.getMessage());
            err.flush();
            return 1;
        }
        System.out.println(job.describe());
        job.execute();
        return 0;
    }
}
