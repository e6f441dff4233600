package org.fraudpipe.job.cli;

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
        return cl;
    }

    @Override
    public Integer call() throws Exception {
        JobConfig config = JobOptions.read(spec.commandLine().getParseResult());
        KafkaFeatureJob job = KafkaFeatureJob.prepare(config);
        System.out.println(job.describe());
        job.execute();
        return 0;
    }
}
