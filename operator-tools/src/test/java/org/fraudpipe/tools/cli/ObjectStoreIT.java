package org.fraudpipe.tools.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.fraudpipe.job.testing.Cli;
import org.fraudpipe.job.topology.JobEnvironment;
import org.fraudpipe.local.LocalObjectStore;
import org.fraudpipe.tools.testing.Fraud;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code ./fraud s3}: a real S3-compatible server (S3Proxy) started, checked and stopped as the
 * launcher does it, and Flink's own S3 file systems, loaded as plugins, against it: a replay writes
 * the streaming job's archive to {@code s3a://} (the Hadoop file system, whose recoverable writer
 * the archive's {@code FileSink} needs), and parity and the lateness advisor read it back from
 * there, and the savepoint tool migrates a first-release savepoint from {@code s3p://} to {@code
 * s3p://}. The job's checkpoints and savepoints on {@code s3p://} under faults are the fault
 * campaign's ({@code SoakIT}); on a cluster of several processes, the production rehearsal's.
 */
class ObjectStoreIT {

    @TempDir Path tmp;

    private Path store;

    @AfterEach
    void stopTheStore() {
        if (store != null) {
            Fraud.fraud("s3", "stop", "--data-dir", store.toString());
        }
    }

    @Test
    void theArchiveWrittenToTheObjectStoreIsReadBackByParityAndTheAdvisor() throws Exception {
        store = tmp.resolve("s3");
        Cli.Run started = Fraud.fraud("s3", "start", "--data-dir", store.toString(), "--port", "0");
        assertThat(started.exitCode()).as(started.err()).isZero();
        assertThat(started.out())
                .contains("Object store running: http://localhost:")
                .contains("export FLINK_CONF_DIR=" + store.resolve("flink-conf"))
                .doesNotContain(LocalObjectStore.credentials(store).secretKey());
        assertThat(Fraud.fraud("s3", "status", "--data-dir", store.toString()).exitCode()).isZero();
        Cli.Run again = Fraud.fraud("s3", "start", "--data-dir", store.toString(), "--port", "0");
        assertThat(again.out()).contains("Object store already running");
        // What the launcher does for every command, with FLINK_CONF_DIR pointing at the store.
        JobEnvironment.initializeFileSystems(store.resolve("flink-conf").toString());

        Path traffic = tmp.resolve("tx.jsonl");
        assertThat(
                        Fraud.fraud(
                                        "simulate",
                                        "--users",
                                        "30",
                                        "--duration",
                                        "2h",
                                        "--start",
                                        "2026-11-28T12:00:00Z",
                                        "--seed",
                                        "5",
                                        "--duplicate-rate",
                                        "0.02",
                                        "--future-rate",
                                        "0.01",
                                        "--malformed-rate",
                                        "0.02",
                                        "--out",
                                        traffic.toString())
                                .exitCode())
                .isZero();
        String archive = "s3a://" + LocalObjectStore.DEFAULT_BUCKET + "/archive";
        Cli.Run replay =
                Fraud.fraud(
                        "replay",
                        "--input",
                        traffic.toString(),
                        "--output",
                        tmp.resolve("out").toString(),
                        "--archive",
                        archive);
        assertThat(replay.exitCode()).as(replay.err()).isZero();
        Path objects =
                store.resolve(LocalObjectStore.OBJECTS_DIR)
                        .resolve(LocalObjectStore.DEFAULT_BUCKET)
                        .resolve("archive");
        try (Stream<Path> files = Files.walk(objects.resolve("transactions"))) {
            assertThat(files.filter(f -> f.getFileName().toString().endsWith(".avro")))
                    .as("archived transactions, as objects of the bucket")
                    .isNotEmpty();
        }

        Cli.Run parity =
                Fraud.fraud(
                        "parity",
                        "--archive",
                        archive,
                        "--date",
                        "2026-11-28",
                        "--report",
                        tmp.resolve("parity").toString(),
                        // 64 windows: the two quarantined records' windows are 3 %.
                        "--max-mismatch-rate",
                        "0.1");
        assertThat(parity.exitCode()).as(parity.out() + parity.err()).isZero();
        assertThat(parity.out()).contains("parity PASS 2026-11-28").contains("0 unexplained");

        Cli.Run advise =
                Fraud.fraud(
                        "advise",
                        "--archive",
                        archive,
                        "--date",
                        "2026-11-28",
                        "--out",
                        tmp.resolve("advice").toString());
        assertThat(advise.exitCode()).as(advise.err()).isIn(0, 1);
        assertThat(tmp.resolve("advice").resolve("advice.json")).exists();

        // The savepoint tool on the store: the first release's committed savepoint (feature-job's
        // test resources), uploaded as an object, migrated from s3p:// to s3p://.
        Path bucket =
                store.resolve(LocalObjectStore.OBJECTS_DIR)
                        .resolve(LocalObjectStore.DEFAULT_BUCKET);
        org.apache.flink.core.fs.Path upload =
                new org.apache.flink.core.fs.Path(
                        "s3a://"
                                + LocalObjectStore.DEFAULT_BUCKET
                                + "/savepoints/upgrade-v1/_metadata");
        try (var out =
                upload.getFileSystem()
                        .create(
                                upload,
                                org.apache.flink.core.fs.FileSystem.WriteMode.NO_OVERWRITE)) {
            Files.copy(
                    Path.of("..", "feature-job", "src", "test", "resources", "savepoints")
                            .resolve("upgrade-v1")
                            .resolve("_metadata"),
                    out);
        }
        String s3p = "s3p://" + LocalObjectStore.DEFAULT_BUCKET + "/savepoints/";
        Cli.Run migrate =
                Fraud.fraud(
                        "savepoint",
                        "migrate",
                        "--from",
                        s3p + "upgrade-v1",
                        "--to",
                        s3p + "upgrade-v1-migrated",
                        "--window-size",
                        "10m",
                        "--allowed-lateness",
                        "2m");
        assertThat(migrate.exitCode()).as(migrate.out() + migrate.err()).isZero();
        assertThat(migrate.out()).contains("Migrated 8 windows");
        assertThat(bucket.resolve("savepoints").resolve("upgrade-v1-migrated").resolve("_metadata"))
                .as("the migrated savepoint, written through s3p://")
                .exists();

        Cli.Run stopped = Fraud.fraud("s3", "stop", "--data-dir", store.toString());
        assertThat(stopped.out()).contains("Object store stopped");
        assertThat(Fraud.fraud("s3", "status", "--data-dir", store.toString()).exitCode())
                .isEqualTo(1);
        store = null;
    }
}
