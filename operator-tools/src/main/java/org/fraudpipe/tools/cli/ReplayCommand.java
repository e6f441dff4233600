package org.fraudpipe.tools.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import org.apache.flink.core.fs.FileSystem;
import org.fraudpipe.job.archive.FileArchive;
import org.fraudpipe.job.cli.JobOptions;
import org.fraudpipe.job.cli.ProgressLine;
import org.fraudpipe.job.config.DirectoryUris;
import org.fraudpipe.job.config.JobConfig;
import org.fraudpipe.job.config.JobOption;
import org.fraudpipe.job.replay.Replay;
import org.fraudpipe.job.replay.ReplayConfig;
import org.fraudpipe.job.replay.ReplayOutput;
import org.fraudpipe.job.replay.ReplaySummary;
import org.fraudpipe.schemas.archive.ArchiveStream;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code ./fraud replay}: the feature job's topology over a JSON Lines file instead of Kafka, in a
 * local MiniCluster, with a watermark after every record; writes {@code features.jsonl}, {@code
 * late.jsonl} and {@code dead-letters.jsonl}. The same input and options give byte-identical files
 * ({@link Replay}).
 *
 * <p>The event-time options are the streaming job's ({@link JobOption}: same names, descriptions
 * and validation), plus {@code --window} as an alias of {@code --window-size}. The state backend
 * defaults to hashmap (a replay keeps no checkpoints). Exit codes: 0 done, 1 the replay failed, 2
 * bad usage or unreadable input (the message names the option).
 */
@Command(
        name = "replay",
        mixinStandardHelpOptions = true,
        sortOptions = false,
        usageHelpAutoWidth = true,
        description = {
            "Replays a JSON Lines file of transactions (the simulator's format, in arrival order;"
                    + " arrivalTime optional) through the feature job's topology in a local Flink"
                    + " MiniCluster, with a watermark after every record.",
            "Writes DIR/features.jsonl, DIR/scores.jsonl, DIR/late.jsonl, DIR/dead-letters.jsonl"
                    + " and DIR/transaction-scores.jsonl (every valid transaction scored at"
                    + " arrival; fields as in the Avro schemas, instants as ISO-8601 UTC, bytes as"
                    + " Base64). The same input and options give byte-identical files at any"
                    + " parallelism.",
            "A record's arrivalTime stands for processing time (future-dated check); without one,"
                    + " its event time does, so it is never future-dated. There is no wall clock:"
                    + " emittedAt and detectedAt are the watermark at the firing, a transaction's"
                    + " scoredAt is the arrival it answers.",
            "The file is read at parallelism 1 (that is what makes the output deterministic);"
                    + " --parallelism sets the windows and the sinks.",
            "With --archive DIR it also writes the streaming job's archive of the run (what the"
                    + " batch parity check reads).",
        },
        footer = {
            "",
            "Example:",
            "  ./fraud simulate --users 30 --duration 2h --malformed-rate 0.01 --out tx.jsonl",
            "  ./fraud replay --input tx.jsonl --output out --window 5m --allowed-lateness 1m",
        })
public final class ReplayCommand implements Callable<Integer> {

    /** The job options that mean something for a replay, in the order of the help. */
    static final List<JobOption> OPTIONS =
            List.of(
                    JobOption.WINDOW_SIZE,
                    JobOption.ALLOWED_LATENESS,
                    JobOption.OUT_OF_ORDERNESS,
                    JobOption.FUTURE_TOLERANCE,
                    JobOption.PARALLELISM,
                    JobOption.MAX_PARALLELISM,
                    JobOption.STATE_BACKEND,
                    JobOption.MODEL,
                    JobOption.REVIEW_THRESHOLD,
                    JobOption.BLOCK_THRESHOLD,
                    JobOption.TRAILING_WINDOW,
                    JobOption.TRANSACTION_MODEL,
                    JobOption.TRANSACTION_REVIEW_THRESHOLD,
                    JobOption.TRANSACTION_BLOCK_THRESHOLD);

    /** A replay keeps no checkpoints: the heap is enough and starts faster. */
    static final String DEFAULT_STATE_BACKEND = "hashmap";

    static final String WINDOW_ALIAS = "--window";

    @Spec CommandSpec spec;

    @Option(
            names = "--input",
            paramLabel = "FILE",
            required = true,
            description = "JSON Lines file of transactions in arrival order.")
    Path input;

    static final String ARCHIVE = "--archive";

    @Option(
            names = ARCHIVE,
            paramLabel = "DIR",
            description =
                    "Also write the streaming job's archive there, as the job does (transactions"
                            + " received, features, scores, late records, dead letters; Avro files"
                            + " in hour partitions): a directory or a Flink file system URI. It"
                            + " must not hold an archive yet (records would be archived twice).")
    String archive;

    @Option(
            names = "--releases-from",
            paramLabel = "ARCHIVE",
            description =
                    "Score with the model releases the streaming job followed, as recorded in this"
                            + " archive (its model-events/): every record by the release that holds"
                            + " the champion role at its coordinate (a transaction's arrival, a"
                            + " pane's window start), with the challenger beside it, as the job"
                            + " scored it. Without it: the start-up models (--model,"
                            + " --transaction-model) score everything.")
    String releasesFrom;

    @Option(
            names = "--output",
            paramLabel = "DIR",
            required = true,
            description =
                    "Directory for features.jsonl, late.jsonl and dead-letters.jsonl (created if"
                            + " missing; existing files of these names are replaced).")
    Path output;

    /** The command line of {@code ./fraud replay}, with the job's event-time options added. */
    public static CommandLine commandLine() {
        CommandLine cl = new CommandLine(new ReplayCommand());
        CommandSpec spec = cl.getCommandSpec();
        JobOptions.addSome(
                spec,
                OPTIONS,
                WINDOW_ALIAS,
                Map.of(),
                Map.of(JobOption.STATE_BACKEND, DEFAULT_STATE_BACKEND));
        return cl;
    }

    @Override
    public Integer call() throws Exception {
        ReplayConfig config = config();
        ReplaySummary summary;
        try (ProgressLine progress = ProgressLine.forCommand("replay")) {
            summary = Replay.run(config, progress);
        } catch (Exception e) {
            PrintWriter err = spec.commandLine().getErr();
            err.println("replay of " + input + " failed: " + rootMessage(e));
            err.flush();
            return 1;
        }
        PrintWriter out = spec.commandLine().getOut();
        out.print(summary.format(config));
        out.flush();
        return 0;
    }

    /** The validated configuration; a {@link ParameterException} (exit code 2) if it is not. */
    ReplayConfig config() {
        if (!Files.isRegularFile(input) || !Files.isReadable(input)) {
            throw usage(
                    "--input "
                            + input
                            + (Files.isDirectory(input)
                                    ? " is a directory; give the JSON Lines file"
                                    : " does not exist or is not a readable file"));
        }
        if (Files.exists(output) && !Files.isDirectory(output)) {
            throw usage("--output " + output + " exists and is not a directory");
        }
        Path inputFile = input.toAbsolutePath().normalize();
        for (ReplayOutput<?> o : ReplayOutput.ALL) {
            if (inputFile.equals(output.toAbsolutePath().normalize().resolve(o.fileName()))) {
                throw usage(
                        "--input "
                                + input
                                + " is one of the files the replay writes into --output "
                                + output
                                + "; choose another output directory");
            }
        }
        Map<String, String> values = new LinkedHashMap<>();
        values.put(JobOption.STATE_BACKEND.key(), DEFAULT_STATE_BACKEND);
        values.putAll(JobOptions.given(spec.commandLine().getParseResult(), OPTIONS));
        ReplayConfig config;
        try {
            config = ReplayConfig.of(input, output, JobConfig.of(values));
        } catch (IllegalArgumentException e) {
            throw usage(e.getMessage());
        }
        if (releasesFrom != null) {
            try {
                config =
                        config.withReleases(
                                org.fraudpipe.job.archive.ArchivedRegistry.read(
                                        DirectoryUris.parse(
                                                        "--releases-from",
                                                        releasesFrom,
                                                        Path.of(""))
                                                .toString()));
            } catch (java.io.UncheckedIOException | IllegalArgumentException e) {
                throw usage("--releases-from: " + e.getMessage());
            }
        }
        return archive == null ? config : config.withArchive(archiveRoot());
    }

    /** The {@code --archive} root: a directory, new or empty of archive streams. */
    private org.apache.flink.core.fs.Path archiveRoot() {
        try {
            org.apache.flink.core.fs.Path root =
                    new org.apache.flink.core.fs.Path(
                            DirectoryUris.parse(ARCHIVE, archive, Path.of("")));
            FileSystem fs = FileArchive.fileSystemOf(root, ARCHIVE);
            if (fs.exists(root) && !fs.getFileStatus(root).isDir()) {
                throw usage(ARCHIVE + " " + archive + " exists and is not a directory");
            }
            List<ArchiveStream> existing = FileArchive.existingStreams(root);
            if (!existing.isEmpty()) {
                throw usage(
                        ARCHIVE
                                + " "
                                + archive
                                + " already holds an archive ("
                                + FileArchive.directory(root, existing.get(0))
                                + "); a replay archives into a new or empty directory, or its"
                                + " records would be archived twice");
            }
            return root;
        } catch (IllegalArgumentException e) {
            throw usage(e.getMessage());
        } catch (IOException e) {
            throw usage(ARCHIVE + " " + archive + " cannot be read: " + e);
        }
    }

    private ParameterException usage(String message) {
        return new ParameterException(spec.commandLine(), message);
    }

    private static String rootMessage(Throwable e) {
        Throwable root = e;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        return root == e ? e.toString() : e.getMessage() + " (cause: " + root + ")";
    }
}
