package org.fraudpipe.parity.input;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDate;
import java.util.Map;
import org.fraudpipe.job.features.WindowAssignment;
import org.fraudpipe.parity.ParityPeriod;
import org.fraudpipe.schemas.archive.ArchiveStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class InputResolverTest {

    private static final LocalDate DAY = LocalDate.parse("2026-11-28");

    @TempDir Path root;

    private InputResolver resolver(Duration windowSize) {
        return new InputResolver(
                ParityPeriod.days(DAY, DAY),
                WindowAssignment.tumbling(windowSize),
                Duration.ofHours(2));
    }

    private void partition(String stream, String partition) throws IOException {
        Path dir = root.resolve(stream).resolve(partition);
        Files.createDirectories(dir);
        Files.writeString(dir.resolve("part-0.avro"), "x");
    }

    @Test
    void readsTheHoursThatExistAndReportsQuietHours() throws Exception {
        partition("transactions", "date=2026-11-28/hour=00");
        partition("transactions", "date=2026-11-28/hour=13");
        partition("transactions", "date=2026-11-27/hour=23");
        partition("features", "date=2026-11-28/hour=13");
        InputResolver r = resolver(Duration.ofMinutes(10));
        Map<ArchiveStream, StreamInput> in = r.archive(root.toString());

        assertThat(in.get(ArchiveStream.TRANSACTIONS).paths())
                .extracting(p -> p.getParent().getName() + "/" + p.getName())
                .containsExactly("date=2026-11-28/hour=00", "date=2026-11-28/hour=13");
        assertThat(r.quietHours()).hasSize(22).doesNotContain("date=2026-11-28/hour=13");
        assertThat(in.get(ArchiveStream.LATE).paths()).isEmpty();
        assertThat(in.get(ArchiveStream.SCORES).paths()).isEmpty();
    }

    @Test
    void aMissingDayIsAnErrorNamingThePartition() throws Exception {
        partition("transactions", "date=2026-11-27/hour=10");
        partition("features", "date=2026-11-28/hour=10");
        assertThatThrownBy(() -> resolver(Duration.ofMinutes(10)).archive(root.toString()))
                .isInstanceOf(ParityInputException.class)
                .hasMessageContaining("missing archive partition")
                .hasMessageContaining("transactions/date=2026-11-28");
    }

    @Test
    void aWindowAcrossMidnightNeedsTheNextDay() throws Exception {
        partition("transactions", "date=2026-11-28/hour=23");
        partition("features", "date=2026-11-28/hour=23");
        assertThatThrownBy(() -> resolver(Duration.ofMinutes(7)).archive(root.toString()))
                .isInstanceOf(ParityInputException.class)
                .hasMessageContaining("transactions/date=2026-11-29");
        partition("transactions", "date=2026-11-29/hour=00");
        partition("transactions", "date=2026-11-29/hour=03");
        Map<ArchiveStream, StreamInput> in =
                resolver(Duration.ofMinutes(7)).archive(root.toString());
        // The period's data ends 00:03 on the 29th; the later records of its partitions are read
        // up to the arrival horizon (2 h) after it, for the watermark bounds: hour 03 is past it.
        assertThat(in.get(ArchiveStream.TRANSACTIONS).paths())
                .extracting(p -> p.getParent().getName() + "/" + p.getName())
                .containsExactly("date=2026-11-28/hour=23", "date=2026-11-29/hour=00");
    }

    @Test
    void transactionsAreReadPastThePeriodUpToTheArrivalHorizonWhereTheyExist() throws Exception {
        partition("transactions", "date=2026-11-28/hour=22");
        partition("features", "date=2026-11-28/hour=22");
        partition("transactions", "date=2026-11-29/hour=01");
        partition("transactions", "date=2026-11-29/hour=02");
        InputResolver resolver = resolver(Duration.ofMinutes(10));
        Map<ArchiveStream, StreamInput> in = resolver.archive(root.toString());
        assertThat(in.get(ArchiveStream.TRANSACTIONS).paths())
                .extracting(p -> p.getParent().getName() + "/" + p.getName())
                .containsExactly("date=2026-11-28/hour=22", "date=2026-11-29/hour=01");
        // Quiet hours are those of the period only.
        assertThat(resolver.quietHours()).contains("date=2026-11-28/hour=23").hasSize(23);
    }

    @Test
    void deadLettersAreReadUpToTheArrivalHorizon() throws Exception {
        partition("transactions", "date=2026-11-28/hour=05");
        partition("features", "date=2026-11-28/hour=05");
        partition("dead-letters", "date=2026-11-27/hour=23");
        partition("dead-letters", "date=2026-11-29/hour=01");
        partition("dead-letters", "date=2026-11-29/hour=02");
        Map<ArchiveStream, StreamInput> in =
                resolver(Duration.ofMinutes(10)).archive(root.toString());
        assertThat(in.get(ArchiveStream.DEAD_LETTERS).paths())
                .extracting(p -> p.getParent().getName() + "/" + p.getName())
                .containsExactly("date=2026-11-27/hour=23", "date=2026-11-29/hour=01");
    }

    @Test
    void aRootWithoutTheJobsDirectoriesIsNotAnArchive() throws Exception {
        assertThatThrownBy(() -> resolver(Duration.ofMinutes(10)).archive(root.toString()))
                .isInstanceOf(ParityInputException.class)
                .hasMessageContaining("has no transactions/ directory");
        assertThatThrownBy(
                        () ->
                                resolver(Duration.ofMinutes(10))
                                        .archive(root.resolve("nope").toString()))
                .hasMessageContaining("does not exist");
    }

    @Test
    void explicitFilesAreReadWholeInTheirFormat() throws Exception {
        Path f = root.resolve("features.jsonl");
        Files.writeString(f, "");
        StreamInput in =
                resolver(Duration.ofMinutes(10)).explicit(ArchiveStream.FEATURES, f.toString());
        assertThat(in.format()).isEqualTo(StreamInput.Format.JSON_LINES);
        assertThat(in.paths()).hasSize(1);
        assertThatThrownBy(
                        () ->
                                resolver(Duration.ofMinutes(10))
                                        .explicit(ArchiveStream.LATE, root.resolve("x").toString()))
                .hasMessageContaining("--late");
    }
}
