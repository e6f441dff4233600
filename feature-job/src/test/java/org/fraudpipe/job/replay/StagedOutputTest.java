package org.fraudpipe.job.replay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;
import org.apache.avro.file.DataFileWriter;
import org.apache.avro.specific.SpecificDatumWriter;
import org.fraudpipe.schemas.avro.FeatureRecord;
import org.fraudpipe.schemas.avro.LateReason;
import org.fraudpipe.schemas.avro.LateRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class StagedOutputTest {

    @TempDir Path tmp;

    private static FeatureRecord pane(String user, long startMillis, int revision) {
        FeatureRecord r = AvroJsonTest.feature();
        r.setUserId(user);
        r.setWindowStart(Instant.ofEpochMilli(startMillis));
        r.setRevision(revision);
        return r;
    }

    private static List<String> jsonOf(List<StagedOutput.Line<FeatureRecord>> lines) {
        return lines.stream().map(StagedOutput.Line::json).toList();
    }

    @Test
    void featuresAreOrderedByUserWindowStartAndRevisionWhateverTheInputOrder() {
        List<FeatureRecord> records =
                new ArrayList<>(
                        List.of(
                                pane("u-2", 0, 0),
                                pane("u-1", 1_000, 0),
                                pane("u-1", 0, 1),
                                pane("u-1", 0, 0),
                                // by time, not by text: "...00.500Z" sorts before "...00Z"
                                pane("u-1", 500, 0)));
        List<String> expected =
                jsonOf(StagedOutput.canonical(ReplayOutput.FEATURES, List.copyOf(records)));

        Collections.shuffle(records, new Random(3));
        List<String> shuffled = jsonOf(StagedOutput.canonical(ReplayOutput.FEATURES, records));

        assertThat(shuffled).isEqualTo(expected);
        assertThat(expected)
                .containsExactly(
                        AvroJson.toJsonLine(pane("u-1", 0, 0)),
                        AvroJson.toJsonLine(pane("u-1", 0, 1)),
                        AvroJson.toJsonLine(pane("u-1", 500, 0)),
                        AvroJson.toJsonLine(pane("u-1", 1_000, 0)),
                        AvroJson.toJsonLine(pane("u-2", 0, 0)));
    }

    @Test
    void recordsEqualInTheSortKeyAreOrderedByTheirWholeLine() {
        LateRecord a = late(1_000);
        LateRecord b = late(1_000);
        b.setLateByMillis(5); // same key (transaction, reason, detectedAt), other content

        List<String> ab =
                StagedOutput.canonical(ReplayOutput.LATE, List.of(a, b)).stream()
                        .map(StagedOutput.Line::json)
                        .toList();
        List<String> ba =
                StagedOutput.canonical(ReplayOutput.LATE, List.of(b, a)).stream()
                        .map(StagedOutput.Line::json)
                        .toList();

        assertThat(ab).isEqualTo(ba);
    }

    private static LateRecord late(long detectedAt) {
        return LateRecord.newBuilder()
                .setTransaction(AvroJsonTest.tx())
                .setReason(LateReason.TOO_LATE)
                .setWindowStart(Instant.EPOCH)
                .setWindowEnd(Instant.EPOCH)
                .setWatermark(null)
                .setLateByMillis(1)
                .setDetectedAt(Instant.ofEpochMilli(detectedAt))
                .build();
    }

    @Test
    void readsEveryCommittedPartFileAndWritesTheFinalFileAtomically() throws Exception {
        Path dir = ReplaySinks.stagingDir(tmp, ReplayOutput.FEATURES);
        Files.createDirectories(dir);
        writePart(dir.resolve("part-a-0-0.avro"), pane("u-2", 0, 0));
        writePart(dir.resolve("part-b-1-0.avro"), pane("u-1", 0, 0), pane("u-1", 0, 1));

        List<FeatureRecord> read = StagedOutput.read(ReplayOutput.FEATURES, tmp);
        Path out = Files.createDirectories(tmp.resolve("out"));
        Files.writeString(out.resolve("features.jsonl"), "old content\n");
        Path file =
                StagedOutput.writeAtomically(
                        out,
                        ReplayOutput.FEATURES.fileName(),
                        StagedOutput.canonical(ReplayOutput.FEATURES, read));

        assertThat(file).isEqualTo(out.resolve("features.jsonl"));
        assertThat(Files.readString(file, StandardCharsets.UTF_8))
                .isEqualTo(
                        AvroJson.toJsonLine(pane("u-1", 0, 0))
                                + "\n"
                                + AvroJson.toJsonLine(pane("u-1", 0, 1))
                                + "\n"
                                + AvroJson.toJsonLine(pane("u-2", 0, 0))
                                + "\n");
        try (Stream<Path> files = Files.list(out)) {
            assertThat(files).containsExactly(file); // no temporary file left
        }
    }

    @Test
    void aMissingStagingDirectoryIsAnEmptyOutput() throws Exception {
        assertThat(StagedOutput.read(ReplayOutput.DEAD_LETTERS, tmp)).isEmpty();
    }

    @Test
    void anUnfinishedPartFileIsRefused() throws Exception {
        Path dir = Files.createDirectories(ReplaySinks.stagingDir(tmp, ReplayOutput.LATE));
        Files.writeString(dir.resolve(".part-x-0-0.avro.inprogress.1234"), "");

        assertThatThrownBy(() -> StagedOutput.read(ReplayOutput.LATE, tmp))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("did not complete its late output");
    }

    private static void writePart(Path file, FeatureRecord... records) throws IOException {
        try (DataFileWriter<FeatureRecord> w =
                new DataFileWriter<>(new SpecificDatumWriter<>(FeatureRecord.class))) {
            w.create(FeatureRecord.getClassSchema(), file.toFile());
            for (FeatureRecord r : records) {
                w.append(r);
            }
        }
    }
}
