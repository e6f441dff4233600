package org.fraudpipe.job.cli;

import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import org.apache.flink.core.execution.JobClient;
import org.fraudpipe.job.KafkaFeatureJob;
import org.fraudpipe.job.config.JobConfig;
import org.fraudpipe.job.config.JobOption;
import org.fraudpipe.job.topology.JobEnvironment;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * {@code ./fraud job}: the streaming feature job against Kafka. Run locally it executes in a local
 * MiniCluster, both paths as two jobs by default ({@link #splits}: the decision job in a JVM of its
 * own, {@link LocalSplit}); submitted with {@code flink run} (main class {@link
 * org.fraudpipe.job.FeatureJob}) it runs one job on the cluster. The options (generated from {@link
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
            "Checks at start-up that Kafka, the topics and the schema registry are there.",
            "Locally it runs both paths as two jobs, the decision job (scores at arrival) in a JVM"
                    + " of its own (--split; --no-split: one job)."
        })
public final class JobCommand implements Callable<Integer> {

    static final String SPLIT = "--split";

    /** This command's own options of a split, not the jobs'. */
    static final java.util.Set<String> SPLIT_OPTIONS =
            java.util.Set.of(SPLIT, "--split-windows-nice");

    @CommandLine.Spec CommandLine.Model.CommandSpec spec;

    @CommandLine.Option(
            names = SPLIT,
            negatable = true,
            description =
                    "Run both paths as two jobs on this machine, as the split deployment runs them"
                            + " on a cluster: the decision job (--paths decisions: scores at"
                            + " arrival; heap state, checkpoints every 30s, transactional ids"
                            + " <prefix>-decisions) in a JVM of its own, the window job (--paths"
                            + " windows) in this one at a lower CPU priority (nice 10), so that"
                            + " window-close bursts and the window job's checkpoints do not hold"
                            + " the decisions back. The default when the job runs locally with"
                            + " both paths; --no-split runs them as one job. Submitted to a"
                            + " cluster (flink run) the command runs one job: submit the two"
                            + " jobs (docs/DEPLOY.md, Two jobs).")
    Boolean split; // null: not given

    @CommandLine.Option(
            names = "--split-windows-nice",
            paramLabel = "N",
            defaultValue = "" + LocalSplit.WINDOWS_NICE,
            description =
                    "With --split: the nice value of the window job's threads (0 leaves them at the"
                            + " decision job's priority; default: ${DEFAULT-VALUE}).")
    int splitWindowsNice;

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
        // A decision job started by a split ends with the command that started it.
        LocalSplit.haltWithParent();
        JobConfig config = read(Map.of());
        if (splits(split, config.paths(), JobEnvironment.runsLocally())) {
            return runSplit(config);
        }
        KafkaFeatureJob job = prepare(config);
        if (job == null) {
            return 1;
        }
        System.out.println(job.describe());
        job.execute();
        return 0;
    }

    /**
     * Whether the command runs the two paths as two jobs: as {@code --split}/{@code --no-split} say
     * ({@code given}, null when neither was), else when both paths run locally (under {@code flink
     * run} a cluster runs the two jobs as two submissions).
     */
    static boolean splits(Boolean given, JobConfig.Paths paths, boolean local) {
        return given != null ? given : paths == JobConfig.Paths.BOTH && local;
    }

    /** The given options, with {@code overrides}; a bad value is a usage error. */
    private JobConfig read(Map<String, String> overrides) {
        try {
            return JobOptions.read(spec.commandLine().getParseResult(), overrides);
        } catch (IllegalArgumentException | UncheckedIOException e) {
            // A bad value or an unreadable --config: a usage error, in one line (exit code 2).
            throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage(), e);
        }
    }

    /** The job, checked and built; null (with the reason printed) if it cannot start. */
    private KafkaFeatureJob prepare(JobConfig config) {
        try {
            return KafkaFeatureJob.prepare(config);
        } catch (IllegalArgumentException | IllegalStateException e) {
            // What the start-up checks found (model, archive, Kafka, registry): their messages
            // name the problem and the fix; a stack trace would only bury them.
            fail("cannot start: " + e.getMessage());
            return null;
        }
    }

    /** Says why the command stops, in one line. */
    private void fail(String message) {
        PrintWriter err = spec.commandLine().getErr();
        err.println("job: " + message);
        err.flush();
    }

    /**
     * {@link #SPLIT}: the window job here, the decision job in a JVM of its own ({@link
     * LocalSplit}); when either ends, the other is stopped too.
     */
    private int runSplit(JobConfig given) throws Exception {
        if (given.paths() != JobConfig.Paths.BOTH) {
            throw new CommandLine.ParameterException(
                    spec.commandLine(),
                    SPLIT + " runs both paths, one job each: leave out " + JobOption.PATHS.flag());
        }
        read(LocalSplit.decisionOverrides(given)); // the decision job's options, checked here
        KafkaFeatureJob windows = prepare(read(LocalSplit.windowOverrides()));
        if (windows == null) {
            return 1;
        }
        if (!windows.isLocal()) {
            fail(
                    SPLIT
                            + " runs both jobs on this machine; on a cluster submit two jobs,"
                            + " --paths windows and --paths decisions (docs/DEPLOY.md, Two jobs)");
            return 1;
        }
        Process decisions =
                LocalSplit.startDecisionJvm(
                        LocalSplit.decisionArguments(
                                LocalSplit.given(spec.commandLine().getParseResult()),
                                LocalSplit.decisionOverrides(given)));
        Runtime.getRuntime().addShutdownHook(new Thread(decisions::destroy));
        System.out.println(
                "job: the decision job runs in a JVM of its own (pid "
                        + decisions.pid()
                        + "), the window job in this one (pid "
                        + ProcessHandle.current().pid()
                        + ")");
        String notReniced =
                splitWindowsNice == 0 ? null : LocalSplit.reniceThisJvm(splitWindowsNice);
        if (notReniced != null) {
            System.out.println(
                    "job: the window job runs at the decision job's CPU priority ("
                            + notReniced
                            + "): a window-close burst may delay decisions");
        }
        System.out.println(windows.describe());
        JobClient client = windows.executeAsync();
        try {
            CompletableFuture.anyOf(client.getJobExecutionResult(), decisions.onExit()).join();
        } catch (CompletionException windowJobFailed) {
            // The window job failed for good (its restarts exhausted): the decision job goes too.
            decisions.destroy();
            decisions.waitFor(30, TimeUnit.SECONDS);
            Throwable root = windowJobFailed;
            while (root.getCause() != null) {
                root = root.getCause();
            }
            fail(
                    "the window job failed ("
                            + root
                            + "): the decision job (pid "
                            + decisions.pid()
                            + ") was stopped too");
            return 1;
        }
        if (!decisions.isAlive()) {
            client.cancel().get();
            fail(
                    "the decision job (pid "
                            + decisions.pid()
                            + ") ended with exit code "
                            + decisions.exitValue()
                            + " (its output is above): the window job was cancelled too");
            return 1;
        }
        decisions.destroy();
        decisions.waitFor(30, TimeUnit.SECONDS);
        return 0;
    }
}
