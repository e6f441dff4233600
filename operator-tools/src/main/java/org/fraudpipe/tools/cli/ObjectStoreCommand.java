package org.fraudpipe.tools.cli;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.Callable;
import org.fraudpipe.job.cli.DurationConverter;
import org.fraudpipe.local.LocalObjectStore;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code ./fraud s3 start|stop|status}: a local S3-compatible object store as a background service,
 * for checkpoints, savepoints and the archive on object storage as a cluster keeps them.
 */
@Command(
        name = "s3",
        mixinStandardHelpOptions = true,
        description = {
            "Runs a local S3-compatible object store (S3Proxy from Maven Central, in front of a"
                    + " directory) as a background JVM on localhost, with one bucket and one user"
                    + " whose keys are made at the first start.",
            "It writes the Flink settings that reach it to DATA_DIR/flink-conf/config.yaml: with"
                    + " FLINK_CONF_DIR pointing there, ./fraud job, demo, parity, replay and advise"
                    + " read and write s3p://BUCKET/... (checkpoints, savepoints) and"
                    + " s3a://BUCKET/... (the archive), as a cluster with Flink's S3 plugins does."
        },
        footer = {
            "",
            "Examples:",
            "  ./fraud s3 start",
            "  ./fraud s3 status",
            "  ./fraud s3 stop",
            "",
            "Then, with FLINK_CONF_DIR=.fraud/s3/flink-conf exported: ./fraud job --checkpoint-dir"
                    + " s3p://fraudpipe/checkpoints --archive-dir s3a://fraudpipe/archive"
        },
        subcommands = {
            ObjectStoreCommand.Start.class,
            ObjectStoreCommand.Stop.class,
            ObjectStoreCommand.Status.class
        })
public final class ObjectStoreCommand implements Runnable {

    @picocli.CommandLine.Spec picocli.CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        spec.commandLine().usage(System.out);
    }

    /** The data directory option shared by the subcommands. */
    static final class DataDir {
        @Option(
                names = "--data-dir",
                paramLabel = "DIR",
                description =
                        "The store's objects, keys, log and state (default: .fraud/s3 under the"
                                + " project root).")
        Path dataDir;

        Path resolve() {
            if (dataDir != null) {
                return dataDir.toAbsolutePath();
            }
            String home = System.getProperty("fraud.home", ".");
            return Path.of(home, ".fraud", "s3").toAbsolutePath().normalize();
        }
    }

    @Command(
            name = "start",
            mixinStandardHelpOptions = true,
            description =
                    "Starts the object store in the background unless it already runs, makes the"
                            + " bucket and waits until it answers. Prints the endpoint, the"
                            + " bucket, the URIs to use and where the Flink settings are.")
    static final class Start implements Callable<Integer> {
        @picocli.CommandLine.Spec picocli.CommandLine.Model.CommandSpec spec;

        @Mixin DataDir dataDir;

        private PrintWriter out() {
            return spec.commandLine().getOut();
        }

        @Option(
                names = "--port",
                paramLabel = "PORT",
                defaultValue = "9000",
                description = "Port on localhost; 0 picks a free one (default: ${DEFAULT-VALUE}).")
        int port;

        @Option(
                names = "--bucket",
                paramLabel = "NAME",
                defaultValue = LocalObjectStore.DEFAULT_BUCKET,
                description = "The bucket made at start (default: ${DEFAULT-VALUE}).")
        String bucket;

        @Option(
                names = "--timeout",
                paramLabel = "DURATION",
                defaultValue = "60s",
                converter = DurationConverter.class,
                description =
                        "How long to wait for the store to answer (default: ${DEFAULT-VALUE}).")
        Duration timeout;

        @Override
        public Integer call() {
            Path dir = dataDir.resolve();
            Optional<LocalObjectStore.State> running = LocalObjectStore.running(dir);
            LocalObjectStore.State state;
            if (running.isPresent()) {
                state = running.get();
                out().printf(
                                "Object store already running: %s (pid %d), data dir %s%n",
                                state.endpoint(), state.pid(), dir);
            } else {
                state =
                        LocalObjectStore.start(
                                new LocalObjectStore.Settings(dir, port, bucket, false, timeout),
                                LocalObjectStore.homeFromSystemProperty());
                out().printf(
                                "Object store running: %s (pid %d), bucket %s%n  objects  %s%n  log     "
                                        + " %s%n",
                                state.endpoint(),
                                state.pid(),
                                state.bucket(),
                                dir.resolve(LocalObjectStore.OBJECTS_DIR),
                                dir.resolve(LocalObjectStore.LOG_FILE));
            }
            Path conf = LocalObjectStore.flinkConfDir(dir);
            out().printf(
                            "Flink's settings for it (endpoint, path-style access, the keys; keep private):"
                                    + " %s/config.yaml%n"
                                    + "Use it with:%n  export FLINK_CONF_DIR=%s%n"
                                    + "  --checkpoint-dir %s   (checkpoints, savepoints: Presto S3)%n"
                                    + "  --archive-dir %s          (the archive: Hadoop S3A)%n"
                                    + "Stop it with: ./fraud s3 stop%s%n",
                            conf,
                            conf,
                            LocalObjectStore.checkpointUri(state.bucket()),
                            LocalObjectStore.archiveUri(state.bucket()),
                            dataDir.dataDir == null ? "" : " --data-dir " + dir);
            out().flush();
            return 0;
        }
    }

    @Command(
            name = "stop",
            mixinStandardHelpOptions = true,
            description = "Stops the object store. The objects and keys are kept.")
    static final class Stop implements Callable<Integer> {
        @picocli.CommandLine.Spec picocli.CommandLine.Model.CommandSpec spec;

        @Mixin DataDir dataDir;

        private PrintWriter out() {
            return spec.commandLine().getOut();
        }

        @Option(
                names = "--grace",
                paramLabel = "DURATION",
                defaultValue = "10s",
                converter = DurationConverter.class,
                description = "Time allowed for a clean shutdown (default: ${DEFAULT-VALUE}).")
        Duration grace;

        @Override
        public Integer call() {
            Path dir = dataDir.resolve();
            Optional<LocalObjectStore.State> state = LocalObjectStore.running(dir);
            if (LocalObjectStore.stop(dir, grace)) {
                out().printf("Object store stopped (pid %d)%n", state.get().pid());
            } else {
                out().printf("No object store running from %s%n", dir);
            }
            out().flush();
            return 0;
        }
    }

    @Command(
            name = "status",
            mixinStandardHelpOptions = true,
            description = "Says whether the object store runs and answers; exit code 1 if not.")
    static final class Status implements Callable<Integer> {
        @picocli.CommandLine.Spec picocli.CommandLine.Model.CommandSpec spec;

        @Mixin DataDir dataDir;

        private PrintWriter out() {
            return spec.commandLine().getOut();
        }

        @Override
        public Integer call() {
            Path dir = dataDir.resolve();
            Optional<LocalObjectStore.State> state = LocalObjectStore.running(dir);
            if (state.isEmpty()) {
                out().printf("Object store: not running (data dir %s)%n", dir);
                return 1;
            }
            boolean answers = LocalObjectStore.answers(state.get().endpoint());
            out().printf(
                            "Object store: %s (pid %d), bucket %s, %s; data dir %s%n",
                            state.get().endpoint(),
                            state.get().pid(),
                            state.get().bucket(),
                            answers ? "answering" : "NOT answering",
                            dir);
            out().flush();
            return answers ? 0 : 1;
        }
    }
}
