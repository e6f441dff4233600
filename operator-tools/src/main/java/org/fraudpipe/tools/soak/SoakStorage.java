package org.fraudpipe.tools.soak;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.fraudpipe.job.topology.JobEnvironment;
import org.fraudpipe.local.LocalObjectStore;
import org.fraudpipe.tools.demo.DemoSettings;

/**
 * Where the soak's job keeps its checkpoints, savepoints and archive: local files, or a local
 * object store ({@code s3p://} for checkpoints and savepoints, {@code s3a://} for the archive, as
 * on a cluster). The store keeps each object as a file under its data directory, so the checker
 * reads the archive and the checkpoint-storage fault reaches the checkpoints there, from outside
 * the job, as with local files. The production rehearsal keeps its cluster's state there too.
 */
public abstract class SoakStorage implements AutoCloseable {

    private static final Duration START_TIMEOUT = Duration.ofSeconds(60);
    private static final Duration STOP_GRACE = Duration.ofSeconds(5);

    /** The job's checkpoint root, as the job is given it. */
    public abstract String checkpointUri();

    /** The checkpoint root's files (for finding the newest checkpoint and blocking the next). */
    abstract Path checkpointFiles();

    /** The URI the job restores a checkpoint of {@link #checkpointFiles()} from. */
    abstract String uriOf(Path checkpoint);

    public abstract String savepointUri();

    public abstract String archiveUri();

    /** The archive's files, for the checker. */
    public abstract Path archiveFiles();

    /** What the job's JVM needs in its environment to reach the storage. */
    abstract Map<String, String> jobEnvironment();

    /** Stops the storage (the {@code STORAGE_DOWN} fault); local files cannot be. */
    void stop() {
        throw new UnsupportedOperationException("local files cannot be stopped");
    }

    void start() {
        throw new UnsupportedOperationException("local files cannot be stopped");
    }

    @Override
    public void close() {}

    static SoakStorage localFiles(DemoSettings traffic) {
        return new SoakStorage() {
            @Override
            public String checkpointUri() {
                return traffic.checkpointDir().toUri().toString();
            }

            @Override
            Path checkpointFiles() {
                return traffic.checkpointDir();
            }

            @Override
            String uriOf(Path checkpoint) {
                return checkpoint.toUri().toString();
            }

            @Override
            public String savepointUri() {
                return traffic.savepointDir().toUri().toString();
            }

            @Override
            public String archiveUri() {
                return traffic.archiveDir().toString();
            }

            @Override
            public Path archiveFiles() {
                return traffic.archiveDir();
            }

            @Override
            Map<String, String> jobEnvironment() {
                return Map.of();
            }
        };
    }

    /**
     * A local object store under {@code dir}, started now (and tied to this JVM), with Flink's file
     * systems of this JVM (parity's) set up to reach it.
     */
    public static SoakStorage objectStore(Path dir) throws IOException {
        Path home = LocalObjectStore.homeFromSystemProperty();
        LocalObjectStore.State first =
                LocalObjectStore.start(
                        new LocalObjectStore.Settings(
                                dir, 0, LocalObjectStore.DEFAULT_BUCKET, true, START_TIMEOUT),
                        home);
        String bucket = first.bucket();
        Path objects = LocalObjectStore.objectFiles(dir, bucket);
        String confDir = LocalObjectStore.flinkConfDir(dir).toString();
        JobEnvironment.initializeFileSystems(confDir);
        return new SoakStorage() {
            @Override
            public String checkpointUri() {
                return LocalObjectStore.checkpointUri(bucket);
            }

            @Override
            Path checkpointFiles() {
                return objects.resolve("checkpoints");
            }

            @Override
            String uriOf(Path checkpoint) {
                return LocalObjectStore.s3pUriOf(dir, bucket, checkpoint);
            }

            @Override
            public String savepointUri() {
                return LocalObjectStore.savepointUri(bucket);
            }

            @Override
            public String archiveUri() {
                return LocalObjectStore.archiveUri(bucket);
            }

            @Override
            public Path archiveFiles() {
                return objects.resolve("archive");
            }

            @Override
            Map<String, String> jobEnvironment() {
                return Map.of("FLINK_CONF_DIR", confDir);
            }

            @Override
            void stop() {
                LocalObjectStore.stop(dir, STOP_GRACE);
            }

            @Override
            void start() {
                LocalObjectStore.start(
                        new LocalObjectStore.Settings(
                                dir, first.port(), bucket, true, START_TIMEOUT),
                        home);
            }

            @Override
            public void close() {
                LocalObjectStore.stop(dir, STOP_GRACE);
            }
        };
    }
}
