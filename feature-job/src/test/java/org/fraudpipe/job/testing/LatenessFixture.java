package org.fraudpipe.job.testing;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.fraudpipe.schemas.avro.Transaction;
import org.fraudpipe.schemas.json.TransactionJson;
import org.fraudpipe.sim.FraudPattern;
import org.fraudpipe.sim.Label;
import org.fraudpipe.sim.LabelJson;
import org.fraudpipe.sim.MalformedKind;

/**
 * A hand-written simulation (transactions and labels) where lateness decides what the stream
 * serves, for the job's default options: window 10m, allowed lateness 2m, out-of-orderness 5s
 * (watermark = max event time - 5s - 1ms), future tolerance 5m. Window [12:00, 12:10) fires at
 * watermark 12:09:59.999 and closes at 12:11:59.999.
 *
 * <pre>
 *  line  id   user   event     arrival   fate in the stream
 *   1    t1   alice  12:01:00  12:01:00  on time                      FRAUD (b-000001)
 *   2    t2   bob    12:02:00  12:02:00  on time
 *   3    t3   carol  12:03:00  12:03:00  on time
 *   4    t4   bob    13:00:00  12:04:00  future-dated: quarantined
 *   5    t5   carol  -         12:04:30  malformed: dead letter
 *   6    t6   dave   12:10:10  12:10:10  on time; watermark 12:10:04.999 fires [12:00, 12:10)
 *   7    t7   bob    12:08:00  12:10:30  late within grace: bob re-fires, revision 1
 *   8    t8   erin   12:12:30  12:12:31  on time; watermark 12:12:24.999 closes [12:00, 12:10)
 *   9    t9   alice  12:09:00  12:12:40  too late
 *  10    t10  frank  12:05:00  12:12:50  too late                     FRAUD (b-000002)
 * </pre>
 *
 * Ideal windows (7, 2 fraudulent): alice@12:00 (t1, t9; fraud), bob@12:00 (t2, t7), bob@13:00 (t4),
 * carol@12:00 (t3), dave@12:10 (t6), erin@12:10 (t8), frank@12:00 (t10; fraud). Served, last
 * revision (5, 1 fraudulent): alice@12:00 with t1 only (differs), bob@12:00 revision 1 (= ideal),
 * carol, dave, erin (= ideal); bob@13:00 and frank@12:00 are never served.
 */
public final class LatenessFixture {

    public static final Instant W12_00 = at("12:00:00");
    public static final Instant W12_10 = at("12:10:00");
    public static final Instant W13_00 = at("13:00:00");

    private LatenessFixture() {}

    public static Instant at(String time) {
        return Instant.parse("2026-11-28T" + time + "Z");
    }

    /** Writes {@code tx.jsonl} and {@code tx.jsonl.labels.jsonl} into {@code dir}. */
    public static Path write(Path dir) throws IOException {
        List<String> tx = new ArrayList<>();
        List<String> labels = new ArrayList<>();
        row(tx, labels, "t1", "alice", 1000, "d-a1", "m-1", "DE", "12:01:00", "12:01:00", 1);
        row(tx, labels, "t2", "bob", 500, "d-b1", "m-2", "DE", "12:02:00", "12:02:00", 0);
        row(tx, labels, "t3", "carol", 300, "d-c1", "m-3", "DE", "12:03:00", "12:03:00", 0);
        row(tx, labels, "t4", "bob", 700, "d-b1", "m-2", "DE", "13:00:00", "12:04:00", 0);
        tx.add("{\"transactionId\":\"t5\",");
        labels.add(
                LabelJson.toJsonLine(
                        new Label(
                                "t5",
                                "carol",
                                at("12:04:30"),
                                at("12:04:30"),
                                tx.size(),
                                false,
                                FraudPattern.NORMAL,
                                null,
                                false,
                                false,
                                false,
                                true,
                                MalformedKind.BAD_JSON)));
        row(tx, labels, "t6", "dave", 300, "d-d1", "m-3", "FR", "12:10:10", "12:10:10", 0);
        row(tx, labels, "t7", "bob", 250, "d-b1", "m-4", "DE", "12:08:00", "12:10:30", 0);
        row(tx, labels, "t8", "erin", 100, "d-e1", "m-5", "DE", "12:12:30", "12:12:31", 0);
        row(tx, labels, "t9", "alice", 2000, "d-a2", "m-1", "DE", "12:09:00", "12:12:40", 0);
        row(tx, labels, "t10", "frank", 150, "d-f1", "m-6", "IT", "12:05:00", "12:12:50", 2);
        Path file = dir.resolve("tx.jsonl");
        Files.write(file, tx, StandardCharsets.UTF_8);
        Files.write(labelsOf(file), labels, StandardCharsets.UTF_8);
        return file;
    }

    public static Path labelsOf(Path tx) {
        return tx.resolveSibling(tx.getFileName() + ".labels.jsonl");
    }

    /** One valid transaction and its label; {@code burst} 0 for legitimate traffic. */
    private static void row(
            List<String> tx,
            List<String> labels,
            String id,
            String user,
            long amount,
            String device,
            String merchant,
            String country,
            String eventTime,
            String arrivalTime,
            int burst) {
        Instant event = at(eventTime);
        Instant arrival = at(arrivalTime);
        tx.add(
                TransactionJson.toJsonLine(
                        new Transaction(id, user, amount, "EUR", merchant, device, country, event),
                        arrival));
        boolean fraud = burst > 0;
        labels.add(
                LabelJson.toJsonLine(
                        new Label(
                                id,
                                user,
                                event,
                                arrival,
                                tx.size(),
                                fraud,
                                fraud ? FraudPattern.ACCOUNT_TAKEOVER : FraudPattern.NORMAL,
                                fraud ? String.format("b-%06d", burst) : null,
                                false,
                                event.isAfter(arrival.plusSeconds(300)),
                                false,
                                false,
                                null)));
    }
}
