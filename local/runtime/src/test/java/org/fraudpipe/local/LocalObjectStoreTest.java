package org.fraudpipe.local;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The local object store's keys and the Flink settings written for it, without starting it. */
class LocalObjectStoreTest {

    @TempDir Path dir;

    @Test
    void theKeysAreMadeOnceKeptPrivateAndNeverPrinted() throws Exception {
        LocalObjectStore.Credentials first = LocalObjectStore.credentials(dir);
        LocalObjectStore.Credentials again = LocalObjectStore.credentials(dir);

        assertThat(again).isEqualTo(first);
        assertThat(first.secretKey()).hasSize(48);
        assertThat(LocalObjectStore.credentials(Files.createDirectory(dir.resolve("other"))))
                .isNotEqualTo(first);
        assertThat(
                        PosixFilePermissions.toString(
                                Files.getPosixFilePermissions(
                                        dir.resolve(LocalObjectStore.CREDENTIALS_FILE))))
                .isEqualTo("rw-------");
        assertThat(first.toString()).doesNotContain(first.secretKey());
    }

    @Test
    void flinksSettingsReachTheStoreWithBothFileSystems() throws Exception {
        LocalObjectStore.Credentials keys = LocalObjectStore.credentials(dir);

        String yaml = LocalObjectStore.flinkConfig(9123, keys);

        assertThat(yaml)
                .contains("s3.endpoint: http://localhost:9123\n")
                .contains("s3.path.style.access: true\n")
                .contains("s3.access-key: " + keys.accessKey() + "\n")
                .contains("s3.secret-key: " + keys.secretKey() + "\n")
                .contains("fs.s3a.directory.marker.retention: keep\n");
    }

    @Test
    void aBucketNameS3WouldRefuseIsRefusedWithTheRule() {
        assertThatThrownBy(
                        () ->
                                new LocalObjectStore.Settings(
                                        dir, 0, "Fraud_Bucket", false, Duration.ofSeconds(1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("is not an S3 bucket name");
    }
}
