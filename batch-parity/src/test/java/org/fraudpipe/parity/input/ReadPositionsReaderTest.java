package org.fraudpipe.parity.input;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.apache.avro.file.DataFileWriter;
import org.apache.avro.specific.SpecificDatumWriter;
import org.fraudpipe.job.position.ReadPositions;
import org.fraudpipe.job.position.ReadPositions.Reader;
import org.fraudpipe.schemas.avro.ReadPosition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ReadPositionsReaderTest {

    @TempDir Path archive;

    private static ReadPosition at(Reader reader, int partition, long next) {
        return ReadPosition.newBuilder()
                .setReader(reader.id())
                .setSourceTopic("transactions")
                .setSourcePartition(partition)
                .setNextOffset(next)
                .setRecordedAt(Instant.EPOCH)
                .build();
    }

    private void write(String hour, String file, List<ReadPosition> records) throws IOException {
        Path dir = archive.resolve("read-positions").resolve(hour);
        Files.createDirectories(dir);
        try (DataFileWriter<ReadPosition> w =
                new DataFileWriter<>(new SpecificDatumWriter<>(ReadPosition.class))) {
            w.create(ReadPosition.getClassSchema(), dir.resolve(file).toFile());
            records.forEach(
                    r -> {
                        try {
                            w.append(r);
                        } catch (IOException e) {
                            throw new java.io.UncheckedIOException(e);
                        }
                    });
        }
    }

    @Test
    void theNewestHourOfEachReaderCountsCommittedFilesOnly() throws Exception {
        // A split deployment: the decision job checkpoints less often, so the newest hour holds
        // only the window job's positions; the decision job's are an hour older.
        write("date=2026-12-04/hour=00", "part-a-0.avro", List.of(at(Reader.DECISIONS, 0, 40)));
        write("date=2026-12-04/hour=00", "part-a-1.avro", List.of(at(Reader.WINDOWS, 0, 30)));
        write("date=2026-12-04/hour=01", "part-b-0.avro", List.of(at(Reader.WINDOWS, 0, 50)));
        // in progress: not committed, not read
        write(
                "date=2026-12-04/hour=01",
                ".part-b-1.avro.inprogress.x",
                List.of(at(Reader.WINDOWS, 0, 99)));

        ReadPositions p = ReadPositionsReader.read(archive.toString());

        assertThat(p.of(Reader.WINDOWS)).isEqualTo(Map.of(0, 50L));
        assertThat(p.of(Reader.DECISIONS)).isEqualTo(Map.of(0, 40L));
    }

    @Test
    void anArchiveWithoutPositionsKnowsNothing() throws Exception {
        Files.createDirectories(archive.resolve("transactions"));
        assertThat(ReadPositionsReader.read(archive.toString())).isEqualTo(ReadPositions.NONE);
    }
}
