package org.fraudpipe.job.cli;

import java.util.Optional;
import java.util.concurrent.Callable;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.fraudpipe.job.archive.FileArchive;
import org.fraudpipe.job.config.JobConfig;
import org.fraudpipe.job.kafka.KafkaIO;
import org.fraudpipe.job.kafka.StartupChecks;
import org.fraudpipe.job.scoring.OnnxPaneScorer;
import org.fraudpipe.job.topology.FeatureJobTopology;
import org.fraudpipe.job.topology.JobEnvironment;
import org.fraudpipe.job.window.FeatureWindowSpec;
import org.fraudpipe.scoring.ModelMetadata;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * {@code ./fraud job}: the streaming feature job against Kafka. Run from {@code ./fraud} it
 * executes in a local MiniCluster; submitted with {@code flink run} (main class {@link
 * org.fraudpipe.job.FeatureJob}) it runs on the cluster. The options (generated from {@link
 * org.fraudpipe.job.config.JobOption}) are the same in both cases.
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

    public static final String JOB_NAME = "fraudpipe feature job";

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
        // The model first: no network needed, and a bad model must stop the job before it runs.
        OnnxPaneScorer.Factory scorer = OnnxPaneScorer.Factory.of(config);
        ModelMetadata model = scorer.check();
        StreamExecutionEnvironment env = JobEnvironment.create(config);
        // Then the archive (no network either): a local path is refused on a cluster.
        Optional<FileArchive> archive = FileArchive.forJob(config, !JobEnvironment.isLocal(env));
        StartupChecks.verify(config);
        FeatureJobTopology.build(
                env,
                KafkaIO.source(config),
                new FeatureWindowSpec(config.windowSize(), config.allowedLateness()),
                new FeatureJobTopology.Scoring(
                        scorer, config.scoringBatchSize(), config.scoringMaxDelay()),
                KafkaIO.sinks(config),
                archive.orElse(null));
        System.out.println(
                "Starting "
                        + JOB_NAME
                        + " with model "
                        + model.name()
                        + " "
                        + model.version()
                        + ", archive "
                        + archive.map(a -> a.root().toString()).orElse(JobConfig.NO_ARCHIVE)
                        + " and "
                        + config.asMap());
        env.execute(JOB_NAME);
        return 0;
    }
}
