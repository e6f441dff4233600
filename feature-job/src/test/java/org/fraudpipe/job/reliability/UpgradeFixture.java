package org.fraudpipe.job.reliability;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.fraudpipe.job.testing.JobDeployment;
import org.fraudpipe.job.testing.TransactionProducer.PartitionedTransaction;
import org.fraudpipe.local.KafkaTestBroker;
import org.fraudpipe.schemas.avro.Transaction;

/**
 * The committed savepoints of earlier builds ({@code src/test/resources/savepoints/upgrade-v1} and
 * {@code upgrade-v2}, see the README there) and the input around them: what they were taken over,
 * and what a restoring test produces next.
 *
 * <p>The deployment is fixed per savepoint ({@link #V1}, {@link #V2}, {@link #V3}: topic names,
 * consumer group, transactional ids, as the savepoint's source and sink state name them;
 * parallelism 2, max parallelism 128). The input is {@link KnownCountTraffic} of 4 users over 4
 * windows with 5 transactions each, cut at {@link #CUT} (window 2 + 110 s):
 *
 * <ul>
 *   <li>{@link #phaseA()}, before the cut, was consumed when the savepoint was taken: windows 0 and
 *       1 had fired (their results went to the generating broker), window 1 was still within its
 *       allowed lateness (its accumulators and pane progress are in the savepoint), and window 2
 *       held one transaction per user (accumulators in the old format).
 *   <li>{@link #phaseB()} comes after it: first a late transaction of {@code u01} for window 1
 *       (within the allowed lateness: it re-fires window 1 as revision 1, counting 6), then the
 *       rest of the traffic and closing ticks.
 * </ul>
 *
 * A restoring test produces phase A again into a fresh topic of the same name (same partitions,
 * same order: same offsets, which the savepoint's source state points after) and then phase B.
 */
final class UpgradeFixture {

    /**
     * The first release's savepoint (Flink's {@code WindowOperator}: migrated before a restore);
     * also the name of its deployment (topics, group, transactional ids).
     */
    static final String V1 = "upgrade-v1";

    /**
     * The savepoint of the current window state ({@code FeatureWindowFunction}), restored as is.
     */
    static final String V2 = "upgrade-v2";

    /**
     * The savepoint of window state format 3 (the on-time firing not written back): every window 1
     * fired on time and is stored as not fired; restored as is.
     */
    static final String V3 = "upgrade-v3";

    static final int PARTITIONS = 3;
    static final Duration WINDOW = Duration.ofMinutes(10);
    static final Instant START = Instant.parse("2025-01-06T00:00:00Z");
    static final KnownCountTraffic TRAFFIC =
            new KnownCountTraffic(4, 4, 5, START, WINDOW, PARTITIONS);
    static final Instant CUT = TRAFFIC.windowStart(2).plusSeconds(110);

    /** The committed savepoint directory of {@code run}, as a classpath resource. */
    static String resource(String run) {
        return "/savepoints/" + run;
    }

    /** The late transaction of phase B: user u01 (partition 1), window 1, 9 min 40 s into it. */
    static final PartitionedTransaction LATE_FOR_WINDOW_1 =
            new PartitionedTransaction(
                    1,
                    Transaction.newBuilder()
                            .setTransactionId("u01-w1-late")
                            .setUserId("u01")
                            .setAmountMinor(777)
                            .setCurrency("EUR")
                            .setMerchantId("m-late")
                            .setDeviceId("d1-late")
                            .setCountry("NL")
                            .setEventTime(TRAFFIC.windowStart(1).plusSeconds(580))
                            .build());

    private UpgradeFixture() {}

    /** The deployment savepoint {@code run} belongs to, on {@code kafka} (topics created). */
    static JobDeployment deployment(KafkaTestBroker kafka, Path checkpoints, String run) {
        return JobDeployment.createExactly(
                kafka,
                run,
                PARTITIONS,
                checkpoints,
                Map.of("idleness", "30m", "parallelism", "2", "max-parallelism", "128"));
    }

    static List<PartitionedTransaction> phaseA() {
        return TRAFFIC.before(CUT);
    }

    static List<PartitionedTransaction> phaseB() {
        List<PartitionedTransaction> b = new ArrayList<>();
        b.add(LATE_FOR_WINDOW_1);
        b.addAll(TRAFFIC.from(CUT));
        b.addAll(TRAFFIC.closingTicks(TRAFFIC.end().plus(Duration.ofMinutes(1))));
        return b;
    }

    /** Every transaction of both phases: the complete input of the batch recomputation. */
    static List<Transaction> allTransactions() {
        List<Transaction> all = new ArrayList<>(KnownCountTraffic.transactions(TRAFFIC.all()));
        all.add(LATE_FOR_WINDOW_1.transaction());
        return all;
    }

    /** Copies a savepoint directory (flat: {@code _metadata} and any state files). */
    static void copySavepoint(Path from, Path to) {
        try {
            Files.createDirectories(to);
            try (Stream<Path> files = Files.list(from)) {
                for (Path f : files.toList()) {
                    if (Files.isDirectory(f)) {
                        throw new IllegalStateException(
                                "unexpected directory in savepoint " + from + ": " + f);
                    }
                    Files.copy(
                            f,
                            to.resolve(f.getFileName().toString()),
                            java.nio.file.StandardCopyOption.REPLACE_EXISTING);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
