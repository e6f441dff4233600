package org.fraudpipe.job.reliability;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.function.Predicate;
import org.fraudpipe.job.testing.TransactionProducer.PartitionedTransaction;
import org.fraudpipe.schemas.avro.Transaction;

/**
 * Simulated traffic with a known count: exactly {@code perWindow} distinct transactions per user
 * and window, for {@code users} users over {@code windows} consecutive windows, so every window
 * result is known in advance ({@code txCount == perWindow}) and any loss or double count shows.
 *
 * <p>Layout: user {@code i} ({@code "u00"}, {@code "u01"}, ...) is produced to partition {@code i %
 * partitions}, so every partition carries data; records are in event-time order (ties by user), so
 * each partition's event time only grows and no record is ever behind its own partition's
 * watermark. With an idleness longer than the test no partition is ever left out of the watermark,
 * so nothing is ever late: every window fires exactly once (revision 0, ON_TIME), whatever the
 * interleaving of partitions, failures and restarts. Windows fire only once event time passes their
 * end plus the bound on every partition: {@link #closingTicks} moves it past the last window.
 *
 * <p>Record {@code j} of user {@code i} in window {@code w} happens at {@code windowStart(w) + (j +
 * 1) * size / (perWindow + 1) + i seconds}; its id is {@code u<i>-w<w>-<j>}, amount {@code 100 * (w
 * + 1) + 10 * j + i}, device {@code d<i>-<j % 2>}, merchant {@code m<j>}, country DE, or FR for j =
 * 0.
 */
public final class KnownCountTraffic {

    private final int users;
    private final int windows;
    private final int perWindow;
    private final Instant start;
    private final Duration windowSize;
    private final int partitions;
    private final List<PartitionedTransaction> all;

    /**
     * @param start the first window's start (aligned to the window size)
     */
    public KnownCountTraffic(
            int users,
            int windows,
            int perWindow,
            Instant start,
            Duration windowSize,
            int partitions) {
        if (start.toEpochMilli() % windowSize.toMillis() != 0) {
            throw new IllegalArgumentException(start + " is not aligned to " + windowSize);
        }
        if (windowSize.minusSeconds(users).compareTo(Duration.ZERO) <= 0) {
            throw new IllegalArgumentException("too many users for " + windowSize);
        }
        this.users = users;
        this.windows = windows;
        this.perWindow = perWindow;
        this.start = start;
        this.windowSize = windowSize;
        this.partitions = partitions;
        this.all = generate();
    }

    private List<PartitionedTransaction> generate() {
        List<PartitionedTransaction> out = new ArrayList<>();
        long size = windowSize.minusSeconds(users).toMillis();
        for (int w = 0; w < windows; w++) {
            for (int i = 0; i < users; i++) {
                for (int j = 0; j < perWindow; j++) {
                    Instant at =
                            windowStart(w)
                                    .plusMillis((j + 1) * size / (perWindow + 1))
                                    .plusSeconds(i);
                    Transaction tx =
                            Transaction.newBuilder()
                                    .setTransactionId(user(i) + "-w" + w + "-" + j)
                                    .setUserId(user(i))
                                    .setAmountMinor(100L * (w + 1) + 10L * j + i)
                                    .setCurrency("EUR")
                                    .setMerchantId("m" + j)
                                    .setDeviceId("d" + i + "-" + (j % 2))
                                    .setCountry(j == 0 ? "FR" : "DE")
                                    .setEventTime(at)
                                    .build();
                    out.add(new PartitionedTransaction(i % partitions, tx));
                }
            }
        }
        out.sort(
                Comparator.comparing((PartitionedTransaction r) -> r.transaction().getEventTime())
                        .thenComparing(r -> r.transaction().getUserId()));
        return List.copyOf(out);
    }

    public static String user(int i) {
        return String.format("u%02d", i);
    }

    public Instant windowStart(int w) {
        return start.plus(windowSize.multipliedBy(w));
    }

    /** The end of the last window. */
    public Instant end() {
        return windowStart(windows);
    }

    public int perWindow() {
        return perWindow;
    }

    /** Number of (user, window) results. */
    public int windowResults() {
        return users * windows;
    }

    /** Every record, in production order. */
    public List<PartitionedTransaction> all() {
        return all;
    }

    /** The records before {@code cut} (event time), in production order. */
    public List<PartitionedTransaction> before(Instant cut) {
        return filter(r -> r.transaction().getEventTime().isBefore(cut));
    }

    /** The records at or after {@code cut} (event time), in production order. */
    public List<PartitionedTransaction> from(Instant cut) {
        return filter(r -> !r.transaction().getEventTime().isBefore(cut));
    }

    private List<PartitionedTransaction> filter(Predicate<PartitionedTransaction> p) {
        return all.stream().filter(p).toList();
    }

    /**
     * One record per partition (user {@code tick-p<n>}) at {@code at}: moves every partition's
     * event time there, so every window ending at least the watermark bound before {@code at}
     * fires. Their own windows never fire (nothing comes after them).
     */
    public List<PartitionedTransaction> closingTicks(Instant at) {
        List<PartitionedTransaction> ticks = new ArrayList<>();
        for (int p = 0; p < partitions; p++) {
            ticks.add(
                    new PartitionedTransaction(
                            p,
                            Transaction.newBuilder()
                                    .setTransactionId("tick-p" + p + "-" + at.toEpochMilli())
                                    .setUserId("tick-p" + p)
                                    .setAmountMinor(1)
                                    .setCurrency("EUR")
                                    .setMerchantId("m-tick")
                                    .setDeviceId("d-tick")
                                    .setCountry("DE")
                                    .setEventTime(at)
                                    .build()));
        }
        return ticks;
    }

    /** The transactions of {@code records}. */
    public static List<Transaction> transactions(List<PartitionedTransaction> records) {
        return records.stream().map(PartitionedTransaction::transaction).toList();
    }
}
