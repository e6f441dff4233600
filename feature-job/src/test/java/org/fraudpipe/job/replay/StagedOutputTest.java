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
import org.apache.avro.specific.SpecificData;
import org.apache.avro.specific.SpecificDatumWriter;
import org.apache.avro.specific.SpecificRecordBase;
import org.fraudpipe.job.cli.ProgressLine;
import org.fraudpipe.job.io.AtomicFiles;
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

    /** Stages {@code records} as one part file in a fresh staging directory and sorts them. */
    private <T extends SpecificRecordBase> List<String> canonical(
            ReplayOutput<T> output, List<T> records, int runLines) throws IOException {
        Path staging = Files.createTempDirectory(tmp, "staging");
        Path dir = Files.createDirectories(ReplaySinks.stagingDir(staging, output));
        writePart(dir.resolve("part-a-0-0.avro"), output, records);
        return sorted(output, staging, runLines);
    }

    private static <T extends SpecificRecordBase> List<String> sorted(
            ReplayOutput<T> output, Path staging, int runLines) throws IOException {
        List<String> lines = new ArrayList<>();
        StagedOutput.sort(
                output, staging, runLines, (record, json) -> lines.add(json), ProgressLine.off());
        return lines;
    }

    @Test
    void featuresAreOrderedByUserWindowStartAndRevisionWhateverTheInputOrder() throws Exception {
        List<FeatureRecord> records =
                new ArrayList<>(
                        List.of(
                                pane("u-2", 0, 0),
                                pane("u-1", 1_000, 0),
                                pane("u-1", 0, 1),
                                pane("u-1", 0, 0),
                                // by time, not by text: "...00.500Z" sorts before "...00Z"
                                pane("u-1", 500, 0)));
        List<String> expected = canonical(ReplayOutput.FEATURES, records, StagedOutput.RUN_LINES);

        Collections.shuffle(records, new Random(3));
        List<String> shuffled = canonical(ReplayOutput.FEATURES, records, StagedOutput.RUN_LINES);

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
    void recordsEqualInTheSortKeyAreOrderedByTheirWholeLine() throws Exception {
        LateRecord a = late(1_000);
        LateRecord b = late(1_000);
        b.setLateByMillis(5); // same key (transaction, reason, detectedAt), other content

        List<String> ab = canonical(ReplayOutput.LATE, List.of(a, b), StagedOutput.RUN_LINES);
        List<String> ba = canonical(ReplayOutput.LATE, List.of(b, a), StagedOutput.RUN_LINES);

        assertThat(ab).isEqualTo(ba);
        // and across spilled runs, where each line is in a run of its own
        assertThat(canonical(ReplayOutput.LATE, List.of(b, a), 1)).isEqualTo(ab);
    }

    @Test
    void runsSpilledToDiskMergeToTheSameLinesAsOneSortInMemory() throws Exception {
        Random random = new Random(11);
        List<FeatureRecord> panes = new ArrayList<>();
        for (int i = 0; i < 500; i++) {
            FeatureRecord p =
                    pane(
                            "u-" + random.nextInt(40),
                            random.nextInt(20) * 600_000L,
                            random.nextInt(3));
            p.setTxCount(random.nextInt(4)); // some equal keys with other content
            panes.add(p);
        }
        Path staging = Files.createTempDirectory(tmp, "staging");
        Path dir = Files.createDirectories(ReplaySinks.stagingDir(staging, ReplayOutput.FEATURES));
        writePart(dir.resolve("part-a-0-0.avro"), ReplayOutput.FEATURES, panes.subList(0, 120));
        writePart(dir.resolve("part-b-1-0.avro"), ReplayOutput.FEATURES, panes.subList(120, 121));
        writePart(dir.resolve("part-c-2-0.avro"), ReplayOutput.FEATURES, panes.subList(121, 500));

        List<String> inMemory = sorted(ReplayOutput.FEATURES, staging, StagedOutput.RUN_LINES);
        List<String> spilled = sorted(ReplayOutput.FEATURES, staging, 7); // 72 runs

        assertThat(spilled).hasSize(500).isEqualTo(inMemory);
        List<String> expected = new ArrayList<>(panes.stream().map(AvroJson::toJsonLine).toList());
        assertThat(inMemory).containsExactlyInAnyOrderElementsOf(expected);
        try (Stream<Path> left = Files.list(staging)) {
            assertThat(left)
                    .as("spilled runs removed")
                    .containsExactly(staging.resolve("features"));
        }
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
    void readsEveryCommittedPartFileAndReplacesTheFinalFileOnlyAtTheCommit() throws Exception {
        Path dir = ReplaySinks.stagingDir(tmp, ReplayOutput.FEATURES);
        Files.createDirectories(dir);
        writePart(
                dir.resolve("part-a-0-0.avro"), ReplayOutput.FEATURES, List.of(pane("u-2", 0, 0)));
        writePart(
                dir.resolve("part-b-1-0.avro"),
                ReplayOutput.FEATURES,
                List.of(pane("u-1", 0, 0), pane("u-1", 0, 1)));
        Path out = Files.createDirectories(tmp.resolve("out"));
        Path target = out.resolve("features.jsonl");
        Files.writeString(target, "old content\n");
        List<Integer> revisionsSeen = new ArrayList<>();

        Path file;
        try (AtomicFiles.Pending pending =
                StagedOutput.prepareCanonical(
                        ReplayOutput.FEATURES,
                        tmp,
                        out,
                        (record, json) -> revisionsSeen.add(record.getRevision()),
                        ProgressLine.off())) {
            assertThat(Files.readString(target)).isEqualTo("old content\n");
            file = pending.commit();
        }

        assertThat(file).isEqualTo(target);
        assertThat(revisionsSeen).containsExactly(0, 1, 0);
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
    void aPreparedFileThatIsNotCommittedLeavesTheOldFileAndNoTemporaryFile() throws Exception {
        Path dir = Files.createDirectories(ReplaySinks.stagingDir(tmp, ReplayOutput.FEATURES));
        writePart(
                dir.resolve("part-a-0-0.avro"), ReplayOutput.FEATURES, List.of(pane("u-1", 0, 0)));
        Path out = Files.createDirectories(tmp.resolve("out"));
        Files.writeString(out.resolve("features.jsonl"), "old content\n");

        try (AtomicFiles.Pending pending =
                StagedOutput.prepareCanonical(
                        ReplayOutput.FEATURES, tmp, out, (r, json) -> {}, ProgressLine.off())) {
            assertThat(pending).isNotNull(); // a later check failed: no commit
        }

        try (Stream<Path> files = Files.list(out)) {
            assertThat(files).containsExactly(out.resolve("features.jsonl"));
        }
        assertThat(Files.readString(out.resolve("features.jsonl"))).isEqualTo("old content\n");
    }

    @Test
    void aMissingStagingDirectoryIsAnEmptyOutput() throws Exception {
        assertThat(sorted(ReplayOutput.DEAD_LETTERS, tmp, StagedOutput.RUN_LINES)).isEmpty();
    }

    @Test
    void anUnfinishedPartFileIsRefused() throws Exception {
        Path dir = Files.createDirectories(ReplaySinks.stagingDir(tmp, ReplayOutput.LATE));
        Files.writeString(dir.resolve(".part-x-0-0.avro.inprogress.1234"), "");

        assertThatThrownBy(() -> sorted(ReplayOutput.LATE, tmp, StagedOutput.RUN_LINES))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("did not complete its late output");
    }

    private static <T extends SpecificRecordBase> void writePart(
            Path file, ReplayOutput<T> output, List<T> records) throws IOException {
        try (DataFileWriter<T> w = new DataFileWriter<>(new SpecificDatumWriter<>(output.type()))) {
            w.create(SpecificData.get().getSchema(output.type()), file.toFile());
            for (T r : records) {
                w.append(r);
            }
        }
    }
}
