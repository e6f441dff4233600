package org.fraudpipe.job.replay;

import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import org.fraudpipe.job.ingest.IngestedRecord;
import org.fraudpipe.job.ingest.RecordIngestor;
import org.fraudpipe.job.ingest.SourcePosition;
import org.fraudpipe.schemas.avro.DeadLetterReason;
import org.fraudpipe.schemas.json.ReplayFormatException;
import org.fraudpipe.schemas.json.ReplayRecord;
import org.fraudpipe.schemas.json.TransactionJson;

/**
 * Turns the lines of one replay file, in file order, into {@link IngestedRecord}s: the replay's
 * counterpart of the Kafka deserializer, with the same rules ({@link RecordIngestor}).
 *
 * <ul>
 *   <li>Position of a line: topic = the file's name, partition 0, offset = its 1-based line number.
 *   <li>A line that is not UTF-8 or not the replay format ({@link TransactionJson#parseLine}) is a
 *       dead letter UNDECODABLE with the line's bytes and the reader's message (which names file
 *       and line).
 *   <li>A readable line goes through {@link RecordIngestor#ingestDecoded}: invalid content is a
 *       dead letter INVALID; otherwise it is future-dated iff its event time is beyond its arrival
 *       plus the tolerance. Its arrival ({@code receivedAt}) is the line's {@code arrivalTime}, or
 *       its event time when the line has none (so such a record is never future-dated).
 * </ul>
 *
 * <p>Processing time of the replay: there is no wall clock, so an unreadable line, which has no
 * time of its own, is received at the replay's clock: the latest {@code arrivalTime} read so far
 * (or event time of a valid line without one); {@code 1970-01-01T00:00:00Z} before the first.
 *
 * <p>Invariants: never throws for bad data; the result depends only on the lines read so far, in
 * order (deterministic). One instance per file reader; not thread-safe.
 */
final class ReplayLineIngestor {

    private final String sourceName;
    private final RecordIngestor ingestor;
    private final CharsetDecoder utf8 =
            StandardCharsets.UTF_8
                    .newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT);
    private long lineNumber;
    private long clock;

    /**
     * @param sourceName the file's name: the dead letters' topic and the prefix of messages
     */
    ReplayLineIngestor(String sourceName, RecordIngestor ingestor) {
        this.sourceName = sourceName;
        this.ingestor = ingestor;
    }

    /** The next line of the file, without terminator, as an ingested record. */
    IngestedRecord ingest(byte[] line) {
        lineNumber++;
        SourcePosition position = new SourcePosition(sourceName, 0, lineNumber, null);
        ReplayRecord parsed;
        try {
            parsed = TransactionJson.parseLine(sourceName, decode(line), lineNumber);
        } catch (ReplayFormatException e) {
            return undecodable(position, line, DeadLetterReason.UNDECODABLE, e.getMessage());
        } catch (CharacterCodingException e) {
            return undecodable(
                    position,
                    line,
                    DeadLetterReason.UNDECODABLE,
                    sourceName + ":" + lineNumber + ": not valid UTF-8 (" + e + ")");
        } catch (RuntimeException e) {
            // A reader bug or an unforeseen input: still data, never a crash loop.
            return undecodable(position, line, DeadLetterReason.OTHER, e.toString());
        }
        long receivedAt = parsed.arrivalOrEventTime().toEpochMilli();
        IngestedRecord record =
                ingestor.ingestDecoded(position, null, line, parsed.transaction(), receivedAt);
        if (parsed.arrivalTime() != null || record.isWindowable()) {
            clock = Math.max(clock, receivedAt);
        }
        return record;
    }

    /** Lines read so far: the line number of the last one. */
    long lineNumber() {
        return lineNumber;
    }

    private String decode(byte[] line) throws CharacterCodingException {
        CharBuffer chars = utf8.reset().decode(ByteBuffer.wrap(line));
        return chars.toString();
    }

    private IngestedRecord undecodable(
            SourcePosition position, byte[] line, DeadLetterReason reason, String message) {
        return RecordIngestor.deadLetter(position, null, line, clock, reason, message);
    }
}
