package org.fraudpipe.job.archive;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import org.fraudpipe.job.config.JobConfig;
import org.fraudpipe.schemas.archive.ArchiveStream;
import org.fraudpipe.schemas.avro.ArchivedTransaction;
import org.fraudpipe.schemas.avro.FeatureRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The archive's sinks and where the job may put them; writing is tested end to end (ReplayIT). */
class FileArchiveTest {

    @TempDir Path tmp;

    private static org.apache.flink.core.fs.Path flink(Path p) {
        return org.apache.flink.core.fs.Path.fromLocalFile(p.toFile());
    }

    @Test
    void eachStreamHasItsOwnDirectorySinkUidAndName() {
        Set<String> uids = new HashSet<>();
        Set<String> names = new HashSet<>();
        Set<String> dirs = new HashSet<>();
        for (ArchiveStream s : ArchiveStream.values()) {
            uids.add(FileArchive.uid(s));
            names.add(FileArchive.name(s));
            dirs.add(FileArchive.directory(flink(tmp), s).getName());
        }
        assertThat(uids).hasSize(ArchiveStream.values().length).doesNotContainNull();
        assertThat(names).hasSize(ArchiveStream.values().length).doesNotContainNull();
        assertThat(dirs)
                .containsExactlyInAnyOrder(
                        "transactions",
                        "features",
                        "scores",
                        "late",
                        "dead-letters",
                        "transaction-scores",
                        "read-positions",
                        "model-events");
    }

    @Test
    void aSinkIsBuiltOnlyForTheStreamsOwnRecordClass() {
        assertThat(
                        FileArchive.sink(
                                flink(tmp), ArchiveStream.TRANSACTIONS, ArchivedTransaction.class))
                .isNotNull();
        assertThatThrownBy(
                        () ->
                                FileArchive.sink(
                                        flink(tmp), ArchiveStream.SCORES, FeatureRecord.class))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("ScoreRecord");
    }

    @Test
    void committedFilesAreVisibleAvroParts() {
        // Readers skip names starting with '.' or '_' (in-progress and pending files).
        assertThat(FileArchive.PART_PREFIX)
                .doesNotStartWith(".")
                .doesNotStartWith("_")
                .isNotEmpty();
        assertThat(FileArchive.PART_SUFFIX).isEqualTo(".avro");
    }

    @Test
    void noneArchivesNothing() {
        assertThat(FileArchive.forJob(JobConfig.of(Map.of("archive-dir", "none")), false))
                .isEmpty();
        assertThat(FileArchive.forJob(JobConfig.of(Map.of("archive-dir", "none")), true)).isEmpty();
    }

    @Test
    void aLocalArchiveDirectoryIsCreatedForALocalRun() {
        Path dir = tmp.resolve("a").resolve("archive");
        FileArchive archive =
                FileArchive.forJob(JobConfig.of(Map.of("archive-dir", dir.toString())), false)
                        .orElseThrow();
        assertThat(dir).isDirectory();
        assertThat(archive.root().toUri().getPath()).isEqualTo(dir.toString());
    }

    @Test
    void onAClusterALocalPathFailsNamingTheOptionButAFileUriIsTakenAsShared() {
        JobConfig local = JobConfig.of(Map.of("archive-dir", tmp.resolve("x").toString()));
        assertThatThrownBy(() -> FileArchive.forJob(local, true))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("--archive-dir '" + tmp.resolve("x") + "' is a local path")
                .hasMessageContaining("shared file system URI");
        assertThatThrownBy(() -> FileArchive.forJob(JobConfig.defaults(), true))
                .hasMessageStartingWith("--archive-dir '.fraud/archive' is a local path");

        JobConfig mount = JobConfig.of(Map.of("archive-dir", "file:///mnt/shared/fraudpipe"));
        assertThat(FileArchive.forJob(mount, true).orElseThrow().root().toUri().getPath())
                .isEqualTo("/mnt/shared/fraudpipe");
        assertThat(Path.of("/mnt/shared/fraudpipe")).as("not created by the client").doesNotExist();
    }

    @Test
    void aUriWithoutAFlinkFileSystemFailsNamingTheOption() {
        JobConfig unknown = JobConfig.of(Map.of("archive-dir", "nosuchfs://bucket/archive"));
        assertThatThrownBy(() -> FileArchive.forJob(unknown, false))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("--archive-dir nosuchfs://bucket/archive")
                .hasMessageContaining("no file system");
        assertThatThrownBy(() -> FileArchive.forJob(unknown, true))
                .hasMessageStartingWith("--archive-dir nosuchfs://bucket/archive");
    }

    @Test
    void aLocalArchiveThatIsAFileFailsNamingTheOption() throws Exception {
        Path file = Files.writeString(tmp.resolve("file"), "x");
        assertThatThrownBy(
                        () ->
                                FileArchive.forJob(
                                        JobConfig.of(Map.of("archive-dir", file.toString())),
                                        false))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("--archive-dir file:" + file)
                .hasMessageContaining("cannot be used as the archive");
    }

    @Test
    void existingStreamsAreTheStreamDirectoriesAlreadyThere() throws Exception {
        assertThat(FileArchive.existingStreams(flink(tmp.resolve("none-yet")))).isEmpty();
        Files.createDirectories(tmp.resolve("dead-letters"));
        Files.createDirectories(tmp.resolve("features").resolve("date=2026-11-28"));
        Files.createDirectories(tmp.resolve("unrelated"));
        assertThat(FileArchive.existingStreams(flink(tmp)))
                .containsExactly(ArchiveStream.FEATURES, ArchiveStream.DEAD_LETTERS);
    }
}
