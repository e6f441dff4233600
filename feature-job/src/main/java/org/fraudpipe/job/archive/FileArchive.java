package org.fraudpipe.job.archive;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.avro.specific.SpecificRecordBase;
import org.apache.flink.connector.file.sink.FileSink;
import org.apache.flink.core.fs.FileStatus;
import org.apache.flink.core.fs.FileSystem;
import org.apache.flink.core.fs.Path;
import org.apache.flink.formats.avro.AvroWriters;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.DataStreamSink;
import org.apache.flink.streaming.api.functions.sink.filesystem.OutputFileConfig;
import org.apache.flink.streaming.api.functions.sink.filesystem.rollingpolicies.OnCheckpointRollingPolicy;
import org.fraudpipe.job.config.JobConfig;
import org.fraudpipe.job.config.JobOption;
import org.fraudpipe.job.topology.Archive;
import org.fraudpipe.job.topology.OperatorNames;
import org.fraudpipe.job.topology.Uids;
import org.fraudpipe.schemas.archive.ArchiveStream;
import org.fraudpipe.schemas.avro.ArchivedModelEvent;
import org.fraudpipe.schemas.avro.ArchivedTransaction;
import org.fraudpipe.schemas.avro.DeadLetter;
import org.fraudpipe.schemas.avro.FeatureRecord;
import org.fraudpipe.schemas.avro.LateRecord;
import org.fraudpipe.schemas.avro.ReadPosition;
import org.fraudpipe.schemas.avro.ScoreRecord;
import org.fraudpipe.schemas.avro.TransactionScore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The job's archive on any Flink file system ({@code file://}, {@code s3://}, {@code hdfs://},
 * ...): one exactly-once {@link FileSink} per {@link ArchiveStream}, writing Avro container files
 * into {@code <root>/<stream directory>/date=YYYY-MM-DD/hour=HH/part-<uuid>-<n>.avro} ({@link
 * ArchiveBucketAssigner}).
 *
 * <p>Exactly-once: Avro is a bulk format, so the sink rolls its files on every checkpoint ({@link
 * OnCheckpointRollingPolicy}) and commits them (rename, or completing a multipart upload) only when
 * that checkpoint completes. After a failure the job resumes from its last completed checkpoint:
 * the files of the records after it were never committed, and those records are read again from the
 * source's checkpointed offsets. So every record is in exactly one committed file.
 *
 * <p>Visibility: until committed, a part file is hidden: in progress and pending files start with
 * {@code .} ({@code .part-<uuid>-<n>.avro.inprogress.<uuid>} on a local or HDFS file system), on S3
 * they do not exist until the upload completes. Readers must skip names starting with {@code .} or
 * {@code _} (Flink's file source does). Files of an attempt that failed may stay behind hidden;
 * they are never committed.
 *
 * <p>Bounded runs (a replay) without checkpointing: the sink writers flush at end of input and
 * Flink's committer operator then commits everything it holds when checkpointing is disabled
 * ({@code CommitterOperator#endInput}, Flink 2.2), so a finished replay leaves only committed files
 * (tested by the replay's integration test).
 *
 * <p>Known limit: one file per hour partition, sink subtask and checkpoint (a small-files cost at
 * short checkpoint intervals); compacting them is left to a later issue.
 */
public final class FileArchive implements Archive {

    private static final Logger LOG = LoggerFactory.getLogger(FileArchive.class);

    /** Committed part files: {@code part-<uuid>-<n>.avro}. */
    public static final String PART_PREFIX = "part";

    public static final String PART_SUFFIX = ".avro";

    private final Path root;
    private final ArchivePolicy policy;
    private final boolean policySinceNow;

    /**
     * An archive that records no policy (tests that write archives by hand).
     *
     * @param root the archive's root directory (see {@link #forJob} or {@link #checked} to validate
     *     it first)
     */
    public FileArchive(Path root) {
        this(root, null);
    }

    /**
     * @param root the archive's root directory (see {@link #forJob} or {@link #checked} to validate
     *     it first)
     * @param policy the event-time policy the job runs with, recorded under {@code <root>/policy/}
     *     ({@link ArchivePolicy}) for the parity check; null records none
     */
    public FileArchive(Path root, ArchivePolicy policy) {
        this(root, policy, true);
    }

    private FileArchive(Path root, ArchivePolicy policy, boolean policySinceNow) {
        this.root = root;
        this.policy = policy;
        this.policySinceNow = policySinceNow;
    }

    /**
     * A replay's archive: its policy is recorded as in force since always (one input, one policy;
     * the wall clock of the replay says nothing about the data's time).
     */
    public static FileArchive forReplay(Path root, ArchivePolicy policy) {
        return new FileArchive(root, policy, false);
    }

    /** The policy this archive records, or null. */
    public ArchivePolicy policy() {
        return policy;
    }

    public Path root() {
        return root;
    }

    @Override
    public void transactions(DataStream<ArchivedTransaction> received) {
        DataStream<ArchivedTransaction> recorded =
                policy == null
                        ? received
                        : received.map(new ArchivePolicyRecorder(root, policy, policySinceNow))
                                .uid(Uids.ARCHIVE_POLICY)
                                .name(OperatorNames.ARCHIVE_POLICY)
                                .setParallelism(received.getParallelism());
        attach(recorded, ArchiveStream.TRANSACTIONS, ArchivedTransaction.class);
    }

    @Override
    public void features(DataStream<FeatureRecord> features) {
        attach(features, ArchiveStream.FEATURES, FeatureRecord.class);
    }

    @Override
    public void scores(DataStream<ScoreRecord> scores) {
        attach(scores, ArchiveStream.SCORES, ScoreRecord.class);
    }

    @Override
    public void late(DataStream<LateRecord> late) {
        attach(late, ArchiveStream.LATE, LateRecord.class);
    }

    @Override
    public void deadLetters(DataStream<DeadLetter> deadLetters) {
        attach(deadLetters, ArchiveStream.DEAD_LETTERS, DeadLetter.class);
    }

    @Override
    public void transactionScores(DataStream<TransactionScore> transactionScores) {
        attach(transactionScores, ArchiveStream.TRANSACTION_SCORES, TransactionScore.class);
    }

    @Override
    public void readPositions(DataStream<ReadPosition> positions) {
        // A few records per partition and checkpoint: one writer, one small file per checkpoint.
        attach(positions, ArchiveStream.READ_POSITIONS, ReadPosition.class).setParallelism(1);
    }

    @Override
    public void modelEvents(DataStream<ArchivedModelEvent> events) {
        // A few records a week: one writer.
        attach(events, ArchiveStream.MODEL_EVENTS, ArchivedModelEvent.class).setParallelism(1);
    }

    private <T extends SpecificRecordBase> DataStreamSink<T> attach(
            DataStream<T> records, ArchiveStream stream, Class<T> type) {
        return records.sinkTo(sink(root, stream, type)).uid(uid(stream)).name(name(stream));
    }

    /**
     * The exactly-once file sink of one archive stream under {@code root}.
     *
     * @throws IllegalArgumentException if {@code type} is not the stream's record class
     */
    public static <T extends SpecificRecordBase> FileSink<T> sink(
            Path root, ArchiveStream stream, Class<T> type) {
        if (!stream.recordClass().equals(type)) {
            throw new IllegalArgumentException(
                    "the "
                            + stream
                            + " archive holds "
                            + stream.recordClass().getSimpleName()
                            + ", not "
                            + type.getSimpleName());
        }
        return FileSink.forBulkFormat(directory(root, stream), AvroWriters.forSpecificRecord(type))
                .withBucketAssigner(new ArchiveBucketAssigner<T>(stream))
                .withRollingPolicy(OnCheckpointRollingPolicy.build())
                .withOutputFileConfig(
                        OutputFileConfig.builder()
                                .withPartPrefix(PART_PREFIX)
                                .withPartSuffix(PART_SUFFIX)
                                .build())
                .build();
    }

    /** The directory of one stream: {@code <root>/<stream directory>}. */
    public static Path directory(Path root, ArchiveStream stream) {
        return new Path(root, stream.directory());
    }

    /** The stable uid of a stream's archive sink. */
    static String uid(ArchiveStream stream) {
        return switch (stream) {
            case TRANSACTIONS -> Uids.ARCHIVE_TRANSACTIONS_SINK;
            case FEATURES -> Uids.ARCHIVE_FEATURES_SINK;
            case SCORES -> Uids.ARCHIVE_SCORES_SINK;
            case LATE -> Uids.ARCHIVE_LATE_SINK;
            case DEAD_LETTERS -> Uids.ARCHIVE_DEAD_LETTERS_SINK;
            case TRANSACTION_SCORES -> Uids.ARCHIVE_TRANSACTION_SCORES_SINK;
            case READ_POSITIONS -> Uids.ARCHIVE_READ_POSITIONS_SINK;
            case MODEL_EVENTS -> Uids.ARCHIVE_MODEL_EVENTS_SINK;
        };
    }

    /** The readable name of a stream's archive sink. */
    static String name(ArchiveStream stream) {
        return switch (stream) {
            case TRANSACTIONS -> OperatorNames.ARCHIVE_TRANSACTIONS_SINK;
            case FEATURES -> OperatorNames.ARCHIVE_FEATURES_SINK;
            case SCORES -> OperatorNames.ARCHIVE_SCORES_SINK;
            case LATE -> OperatorNames.ARCHIVE_LATE_SINK;
            case DEAD_LETTERS -> OperatorNames.ARCHIVE_DEAD_LETTERS_SINK;
            case TRANSACTION_SCORES -> OperatorNames.ARCHIVE_TRANSACTION_SCORES_SINK;
            case READ_POSITIONS -> OperatorNames.ARCHIVE_READ_POSITIONS_SINK;
            case MODEL_EVENTS -> OperatorNames.ARCHIVE_MODEL_EVENTS_SINK;
        };
    }

    /**
     * The streaming job's archive as {@code --archive-dir} configures it, checked before the job
     * starts; empty (with a warning) for {@code none}.
     *
     * @param onCluster whether the job runs on a cluster (not in a local MiniCluster): then every
     *     TaskManager writes the archive, so a local path of the client is refused
     * @throws IllegalArgumentException naming the option, if the archive cannot be written there
     */
    public static Optional<FileArchive> forJob(JobConfig config, boolean onCluster) {
        String flag = JobOption.ARCHIVE_DIR.flag();
        Optional<java.net.URI> dir = config.archiveDir();
        if (dir.isEmpty()) {
            LOG.warn(
                    "{} {}: the job archives nothing it receives or writes, so the batch parity"
                            + " check (and training export) cannot run over this period",
                    flag,
                    JobConfig.NO_ARCHIVE);
            return Optional.empty();
        }
        if (onCluster && config.archiveDirIsLocalPath()) {
            throw new IllegalArgumentException(
                    flag
                            + " '"
                            + config.asMap().get(JobOption.ARCHIVE_DIR.key())
                            + "' is a local path of this client, but on a cluster every"
                            + " TaskManager writes the archive: give a shared file system URI"
                            + " (s3://BUCKET/fraudpipe/archive, hdfs://..., or file:///MOUNT on a"
                            + " mount every TaskManager shares), or "
                            + JobConfig.NO_ARCHIVE);
        }
        Path root = new Path(dir.get());
        if (onCluster) {
            // The client may not see the cluster's mounts: only the file system is checked here.
            fileSystemOf(root, flag);
            return Optional.of(new FileArchive(root, ArchivePolicy.of(config)));
        }
        return Optional.of(new FileArchive(checked(root, flag).root(), ArchivePolicy.of(config)));
    }

    /**
     * An archive at {@code root} once its file system is known to Flink (its plugin installed) and,
     * on a local file system, the directory exists (created if needed) and is writable.
     *
     * @param option the option that named {@code root}, for the message
     * @throws IllegalArgumentException naming the option otherwise
     */
    public static FileArchive checked(Path root, String option) {
        FileSystem fs = fileSystemOf(root, option);
        if (!fs.isDistributedFS()) {
            try {
                fs.mkdirs(root);
                FileStatus status = fs.getFileStatus(root);
                java.nio.file.Path local = java.nio.file.Path.of(root.toUri().getPath());
                if (!status.isDir() || !java.nio.file.Files.isWritable(local)) {
                    throw new IOException("exists but is not a writable directory");
                }
            } catch (IOException | RuntimeException e) {
                throw new IllegalArgumentException(
                        option
                                + " "
                                + root
                                + " cannot be used as the archive, a writable directory: "
                                + e,
                        e);
            }
        }
        return new FileArchive(root);
    }

    /**
     * The Flink file system of {@code root}.
     *
     * @param option the option that named {@code root}, for the message
     * @throws IllegalArgumentException naming the option if Flink has none for its scheme
     */
    public static FileSystem fileSystemOf(Path root, String option) {
        try {
            return root.getFileSystem();
        } catch (IOException e) {
            throw new IllegalArgumentException(
                    option
                            + " "
                            + root
                            + ": Flink has no file system for it ("
                            + e.getMessage()
                            + "); check the URI, or install the file system's plugin (e.g."
                            + " flink-s3-fs-hadoop for s3://) in Flink's plugins/ directory",
                    e);
        }
    }

    /**
     * The streams that already have a directory under {@code root} (an archive, or part of one, is
     * there). A replay refuses such a root: its records would be archived twice.
     */
    public static List<ArchiveStream> existingStreams(Path root) throws IOException {
        FileSystem fs = root.getFileSystem();
        List<ArchiveStream> found = new ArrayList<>();
        for (ArchiveStream stream : ArchiveStream.values()) {
            if (fs.exists(directory(root, stream))) {
                found.add(stream);
            }
        }
        return found;
    }

    @Override
    public String toString() {
        return "FileArchive{" + root + "}";
    }
}
