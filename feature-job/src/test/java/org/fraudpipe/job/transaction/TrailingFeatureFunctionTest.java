package org.fraudpipe.job.transaction;

import static org.assertj.core.api.Assertions.assertThat;
import static org.fraudpipe.job.transaction.TrailingHarness.arrival;
import static org.fraudpipe.job.transaction.TrailingHarness.tx;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.state.rocksdb.EmbeddedRocksDBStateBackend;
import org.fraudpipe.job.features.TrailingFeatures;
import org.fraudpipe.job.ingest.IngestedRecord;
import org.fraudpipe.schemas.avro.DeadLetter;
import org.fraudpipe.schemas.avro.DeadLetterReason;
import org.fraudpipe.schemas.avro.Transaction;
import org.fraudpipe.schemas.avro.TransactionFeatures;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The per-transaction path's trailing features, driven through the real operators with explicit
 * watermarks: trailing window T = 10 minutes, allowed lateness L = 2 minutes, so a received
 * transaction stays in state until the watermark reaches its event time + 12 minutes.
 */
class TrailingFeatureFunctionTest {

    private static final Duration T = Duration.ofMinutes(10);
    private static final Duration L = Duration.ofMinutes(2);
    private static final long MINUTE = 60_000;
    private static final long AT = 1_735_725_600_000L; // 2025-01-01T10:00Z

    private TrailingHarness harness;

    @AfterEach
    void close() throws Exception {
        if (harness != null) {
            harness.close();
        }
    }

    private TrailingHarness open() throws Exception {
        harness = TrailingHarness.open(TrailingHarness.spec(T, L));
        return harness;
    }

    private static TransactionFeatures features(ArrivalFeatures a) {
        return a.features;
    }

    @Test
    void everyTransactionIsAnsweredAtOnceOutOfOrderAndLateOnesWithTheExactFeatures()
            throws Exception {
        TrailingHarness h = open();
        h.process(tx("a", "alice", 100, "d1", "m1", "DE", AT));
        assertThat(h.answers()).hasSize(1); // at once: no watermark needed
        h.process(tx("c", "alice", 300, "d2", "m1", "DE", AT + 2 * MINUTE));
        h.watermark(AT + 2 * MINUTE);
        // out of order and a minute behind the watermark: b precedes c in event time
        h.process(tx("b", "alice", 200, "d1", "m2", "FR", AT + MINUTE));
        h.watermark(AT + 11 * MINUTE);
        // late: its window [AT, AT + 10m) fired long ago, but a is still in state (it leaves at
        // AT + T + L) and d is exactly L behind the watermark: its trailing window is complete
        h.process(tx("d", "alice", 400, "d3", "m1", "DE", AT + 9 * MINUTE));

        List<ArrivalFeatures> answers = h.answers();
        assertThat(answers)
                .extracting(a -> a.features.getTransactionId())
                .containsExactly("a", "c", "b", "d");
        TransactionFeatures c = features(answers.get(1));
        assertThat(c.getTxCount()).isEqualTo(2);
        assertThat(c.getAmountSum()).isEqualTo(400);
        assertThat(c.getNewDevice()).isTrue();
        assertThat(c.getNewMerchant()).isFalse();
        TransactionFeatures b = features(answers.get(2));
        assertThat(b.getTxCount()).as("a only: c is after b").isEqualTo(2);
        assertThat(b.getAmountSum()).isEqualTo(300);
        assertThat(b.getNewCountry()).isTrue();
        assertThat(b.getDistinctCountries()).isEqualTo(2);
        TransactionFeatures d = features(answers.get(3));
        assertThat(d.getTxCount()).isEqualTo(4);
        assertThat(d.getAmountSum()).isEqualTo(1000);
        assertThat(d.getAmountMax()).isEqualTo(400);
        assertThat(d.getDistinctDevices()).isEqualTo(3);
        assertThat(answers).allMatch(a -> a.features.getHistoryComplete());
        assertThat(answers).noneMatch(a -> a.retry);
        assertThat(answers)
                .allMatch(a -> a.features.getTrailingWindowMillis() == T.toMillis())
                .allMatch(a -> a.features.getUserId().equals("alice"));
    }

    @Test
    void aRetryIsAnsweredWithTheOriginalsFeaturesWhateverItCarries() throws Exception {
        TrailingHarness h = open();
        h.process(arrival(tx("a", "alice", 100, AT), AT + 10, 5_000L));
        h.process(tx("b", "alice", 50, AT + MINUTE));
        // an exact retry, and a conflicting duplicate with another amount and event time
        h.process(arrival(tx("a", "alice", 100, AT), AT + MINUTE + 20, 7_000L));
        h.process(tx("a", "alice", 999, AT + 2 * MINUTE));

        List<ArrivalFeatures> answers = h.answers();
        assertThat(answers).hasSize(4);
        ArrivalFeatures original = answers.get(0);
        for (ArrivalFeatures retry : List.of(answers.get(2), answers.get(3))) {
            assertThat(retry.retry).isTrue();
            assertThat(retry.features).isEqualTo(original.features);
            assertThat(retry.recordTimestamp).isEqualTo(5_000L);
        }
        // the retry's own arrival is what its latency is measured from
        assertThat(answers.get(2).arrivalRecordTimestamp).isEqualTo(7_000L);
        assertThat(answers.get(2).receivedAt).isEqualTo(AT + MINUTE + 20);
        // and a duplicate is not counted again by later transactions
        h.process(tx("c", "alice", 1, AT + 3 * MINUTE));
        assertThat(h.last().features.getTxCount()).isEqualTo(3);
        assertThat(h.last().features.getAmountSum()).isEqualTo(151);
    }

    @Test
    void aTransactionMoreThanTheLatenessBehindTheWatermarkIsScoredWithWhatStateHoldsAndSaysSo()
            throws Exception {
        TrailingHarness h = open();
        h.process(tx("a", "alice", 100, AT));
        h.process(tx("b", "alice", 100, AT + 9 * MINUTE));
        h.watermark(AT + 12 * MINUTE); // a leaves: AT + T + L
        assertThat(h.stateEntries()).isEqualTo(1);

        // exactly the lateness behind the watermark: still complete (b's window is intact)
        h.process(tx("c", "alice", 10, AT + 10 * MINUTE));
        assertThat(h.last().features.getHistoryComplete()).isTrue();
        assertThat(h.last().features.getTxCount()).isEqualTo(2);

        // one millisecond more: its window (AT - 1ms, ...] would have held a, which is gone
        h.process(tx("d", "alice", 10, AT + 10 * MINUTE - 1));
        assertThat(h.last().features.getHistoryComplete()).isFalse();
        assertThat(h.last().features.getTxCount()).as("a is evicted: a lower bound").isEqualTo(2);

        // past its own eviction time on arrival: scored, not held (answered only, for retries)
        int entries = h.stateEntries();
        h.process(tx("e", "alice", 10, AT - 5 * MINUTE));
        assertThat(h.last().features.getTransactionId()).isEqualTo("e");
        assertThat(h.last().features.getHistoryComplete()).isFalse();
        assertThat(h.stateEntries()).isEqualTo(entries);
        assertThat(h.answeredOnlyEntries()).isEqualTo(1);
    }

    /**
     * Found by nightly parity at 20M ({@code RETRY_CONFLICT}): a transaction arriving past its
     * eviction time counts as left for the user's later transactions, and its producer retry,
     * seconds later, was judged by that too: answered with {@code historyComplete} false where the
     * first answer said true. Now the retry gets the first answer while the transaction is kept
     * answered-only (until the watermark at its arrival + T + L), and is scored anew after that.
     */
    @Test
    void aRetryOfATransactionTooLateToBeHeldGetsItsFirstAnswerForTPlusL() throws Exception {
        TrailingHarness h = open();
        h.process(tx("a", "alice", 100, AT + 20 * MINUTE));
        h.watermark(AT + 20 * MINUTE);

        // x leaves at AT + 12m, before the watermark: not held. Nothing of (AT - 10m, AT] left.
        h.process(arrival(tx("x", "alice", 10, AT), AT + 20 * MINUTE, 9_000L));
        ArrivalFeatures first = h.last();
        assertThat(first.features.getHistoryComplete()).isTrue();
        assertThat(first.features.getTxCount()).isEqualTo(1);
        assertThat(h.stateEntries()).as("held: a").isEqualTo(1);
        assertThat(h.answeredOnlyEntries()).as("x").isEqualTo(1);

        // x counts as left for another transaction of its window: not counted, flagged
        h.process(tx("y", "alice", 10, AT));
        assertThat(h.last().features.getHistoryComplete()).isFalse();
        assertThat(h.last().features.getTxCount()).isEqualTo(1);

        // x's retries get its first answer, up to the watermark at its arrival + T + L
        h.process(arrival(tx("x", "alice", 10, AT), AT + 20 * MINUTE + 3, 9_500L));
        h.watermark(AT + 32 * MINUTE - 1);
        h.process(arrival(tx("x", "alice", 10, AT), AT + 32 * MINUTE, 9_900L));
        for (ArrivalFeatures retry : h.answers().subList(3, 5)) {
            assertThat(retry.retry).isTrue();
            assertThat(retry.features).isEqualTo(first.features);
            assertThat(retry.recordTimestamp).isEqualTo(9_000L);
        }

        // then nothing of alice is left (a leaves at AT + 32m too), and a retry is new again
        h.watermark(AT + 32 * MINUTE);
        assertThat(h.stateEntries()).isZero();
        assertThat(h.answeredOnlyEntries()).isZero();
        assertThat(h.timers()).isZero();
        h.process(tx("x", "alice", 10, AT));
        assertThat(h.last().retry).isFalse();
        assertThat(h.last().features.getHistoryComplete()).isFalse();
    }

    /**
     * Found by the fault campaign: after a failover the replay interleaves records and watermarks
     * otherwise, and the flag, judged by the watermark of the moment, differed between two answers
     * to one arrival that held the same entries. Judged by what left the state, the answer is the
     * same wherever the watermark stood.
     */
    @Test
    void theAnswerIsTheSameWhereverTheWatermarkStoodWhenNothingOfItsWindowHadLeft()
            throws Exception {
        // b is more than L behind the watermark in the first run, not in the second; a, in its
        // window, has not left in either (it leaves at AT + 12m).
        Transaction a = tx("a", "alice", 100, AT);
        Transaction b = tx("b", "alice", 50, AT + 5 * MINUTE);
        TrailingHarness first = open();
        first.process(a);
        first.watermark(AT + 8 * MINUTE);
        first.process(b);
        ArrivalFeatures watermarkFirst = first.last();
        first.close();
        harness = null;

        TrailingHarness second = open();
        second.process(a);
        second.process(b);
        second.watermark(AT + 8 * MINUTE);
        ArrivalFeatures recordFirst = second.answers().get(1);

        assertThat(watermarkFirst.features).isEqualTo(recordFirst.features);
        assertThat(watermarkFirst.features.getHistoryComplete()).isTrue();
        assertThat(watermarkFirst.features.getTxCount()).isEqualTo(2);
    }

    /**
     * Found by the 20-minute fault campaign: a user whose entries had all left started its state
     * again with a newer transaction, and a transaction hours late, whose window held one that had
     * left, was judged complete (txCount 1, where parity counted 2).
     */
    @Test
    void aUserWhoseStateStartedAgainDoesNotClaimWhatLeftBefore() throws Exception {
        TrailingHarness h = open();
        h.process(tx("a", "alice", 100, AT));
        h.watermark(AT + 12 * MINUTE); // a leaves: alice has no state
        assertThat(h.stateEntries()).isZero();
        h.process(tx("b", "alice", 10, AT + 30 * MINUTE)); // her state starts again
        h.process(tx("late", "alice", 20, AT + MINUTE)); // a was in its window

        assertThat(h.last().features.getTxCount()).isEqualTo(1);
        assertThat(h.last().features.getHistoryComplete()).isFalse();

        // What had not left is still judged complete: c's window (AT + 21m, AT + 31m] holds b.
        h.process(tx("c", "alice", 30, AT + 31 * MINUTE));
        assertThat(h.last().features.getTxCount()).isEqualTo(2);
        assertThat(h.last().features.getHistoryComplete()).isTrue();
    }

    /**
     * The same for a late transaction still held: its eviction time comes before the watermark at
     * its arrival + T + L, and a retry after it gets the first answer too.
     */
    @Test
    void aRetryOfALateTransactionGetsItsFirstAnswerAfterItsEvictionTime() throws Exception {
        TrailingHarness h = open();
        h.process(tx("a", "alice", 1, AT + 10 * MINUTE)); // alice's state knows nothing left
        h.watermark(AT + 11 * MINUTE);
        h.process(tx("z", "alice", 10, AT)); // behind the watermark, held until AT + 12m
        ArrivalFeatures first = h.last();
        assertThat(first.features.getHistoryComplete()).isTrue();

        h.watermark(AT + 12 * MINUTE); // z leaves: no longer counted, kept for its retries
        assertThat(h.stateEntries()).as("a").isEqualTo(1);
        assertThat(h.answeredOnlyEntries()).isEqualTo(1);
        h.process(tx("w", "alice", 10, AT + 5 * MINUTE)); // its window held z, which left
        assertThat(h.last().features.getHistoryComplete()).isFalse();
        assertThat(h.last().features.getTxCount()).isEqualTo(1);
        h.process(tx("z", "alice", 10, AT));
        assertThat(h.last().retry).isTrue();
        assertThat(h.last().features).isEqualTo(first.features);

        h.watermark(AT + 23 * MINUTE); // the watermark at z's arrival + T + L
        h.process(tx("z", "alice", 10, AT));
        assertThat(h.last().retry).isFalse();
    }

    @Test
    void stateAndTheOneTimerPerUserAreGoneOnceTheWatermarkPassesEveryEventTimePlusTPlusL()
            throws Exception {
        TrailingHarness h = open();
        h.process(tx("a1", "alice", 1, AT + 5 * MINUTE));
        h.process(tx("a2", "alice", 1, AT)); // earlier eviction: the timer moves
        h.process(tx("a3", "alice", 1, AT + 8 * MINUTE));
        h.process(tx("b1", "bob", 1, AT + MINUTE));
        assertThat(h.stateEntries()).isEqualTo(4);
        assertThat(h.timers()).as("one coalesced timer per user").isEqualTo(2);

        h.watermark(AT + 12 * MINUTE - 1);
        assertThat(h.stateEntries()).isEqualTo(4);
        h.watermark(AT + 12 * MINUTE);
        assertThat(h.stateEntries()).as("a2 left").isEqualTo(3);
        assertThat(h.timers()).isEqualTo(2);
        h.watermark(AT + 17 * MINUTE);
        assertThat(h.stateEntries()).as("a1 and b1 left").isEqualTo(1);
        assertThat(h.timers()).isEqualTo(1);

        h.watermark(AT + 20 * MINUTE);

        assertThat(h.stateEntries()).isZero();
        assertThat(h.rawStateEntries()).as("no empty map left behind").isZero();
        assertThat(h.timers()).isZero();
    }

    @Test
    void stateIsGoneInRocksDbToo() throws Exception {
        harness =
                TrailingHarness.open(
                        TrailingHarness.spec(T, L), new EmbeddedRocksDBStateBackend(), null);
        harness.process(tx("a", "alice", 1, AT));
        harness.process(tx("b", "bob", 1, AT));
        assertThat(harness.stateEntries()).isEqualTo(2);

        harness.watermark(AT + 12 * MINUTE);

        assertThat(harness.stateEntries()).isZero();
        assertThat(harness.rawStateEntries()).isZero();
        assertThat(harness.timers()).isZero();
    }

    /**
     * The state bound, measured: what one received transaction with the simulator's ids (UUID
     * transaction id, {@code d-<12 hex>} device, {@code m-<5 digits>} merchant) costs in a full
     * snapshot of the heap backend and in RocksDB's (the key group, the user, the transaction id
     * and the entry).
     */
    @ParameterizedTest(name = "heap={0}")
    @ValueSource(booleans = {true, false})
    void aReceivedTransactionCostsAboutOneHundredFiftyBytesOfState(boolean heap) throws Exception {
        harness =
                TrailingHarness.open(
                        TrailingHarness.spec(T, L),
                        heap ? null : new EmbeddedRocksDBStateBackend(),
                        null);
        Random random = new Random(3);
        int users = 200;
        int perUser = 4;
        for (int u = 0; u < users; u++) {
            for (int i = 0; i < perUser; i++) {
                harness.process(
                        arrival(
                                tx(
                                        java.util
                                                .UUID
                                                .nameUUIDFromBytes(
                                                        (u + "/" + i)
                                                                .getBytes(
                                                                        java.nio.charset
                                                                                .StandardCharsets
                                                                                .UTF_8))
                                                .toString(),
                                        String.format("u-%06d", u),
                                        100 + random.nextInt(50_000),
                                        String.format("d-%012x", random.nextLong() >>> 16),
                                        String.format("m-%05d", random.nextInt(5_000)),
                                        "DE",
                                        AT + i * MINUTE),
                                AT + i * MINUTE + 100,
                                AT + i * MINUTE + 50L));
            }
        }
        assertThat(harness.stateEntries()).isEqualTo(users * perUser);
        long bytes =
                harness.trailing.snapshot(1, 1).getManagedKeyedState().stream()
                        .mapToLong(org.apache.flink.runtime.state.StateObject::getStateSize)
                        .sum();
        double perEntry = (double) bytes / (users * perUser);
        System.out.printf(
                java.util.Locale.ROOT,
                "per-transaction state (%s snapshot): %d bytes for %d users x %d received"
                        + " transactions = %.0f bytes per transaction%n",
                heap ? "heap" : "RocksDB",
                bytes,
                users,
                perUser,
                perEntry);
        assertThat(perEntry).isBetween(60.0, 200.0);
    }

    @Test
    void futureDatedRecordsAndDeadLettersNeverReachThePath() throws Exception {
        TrailingHarness h = open();
        Transaction valid = tx("v", "alice", 1, AT);
        Transaction future = tx("f", "alice", 1, AT + 3_600_000);
        IngestedRecord dead =
                IngestedRecord.dead(
                        DeadLetter.newBuilder()
                                .setSourceTopic("transactions")
                                .setSourcePartition(0)
                                .setSourceOffset(3)
                                .setReason(DeadLetterReason.UNDECODABLE)
                                .setErrorMessage("x")
                                .setDetectedAt(java.time.Instant.ofEpochMilli(AT))
                                .build(),
                        AT);
        IngestedRecord quarantined =
                IngestedRecord.valid(
                        future,
                        new org.fraudpipe.job.ingest.SourcePosition("transactions", 0, 2, null),
                        AT,
                        true);

        assertThat(h.filtered(List.of(arrival(valid, AT, null), quarantined, dead)))
                .extracting(r -> r.transaction.getTransactionId())
                .containsExactly("v");
    }

    @ParameterizedTest(name = "heap={0}")
    @ValueSource(booleans = {true, false})
    void aRestoreFromASnapshotGivesTheSameAnswersAsARunWithout(boolean heap) throws Exception {
        List<Step> steps = randomSteps(new Random(77), 400);
        List<ArrivalFeatures> uninterrupted = run(steps, 0, steps.size(), heap, null).answers;

        Run first = run(steps, 0, steps.size() / 2, heap, null);
        Run second = run(steps, steps.size() / 2, steps.size(), heap, first.snapshot);
        List<ArrivalFeatures> restored = new ArrayList<>(first.answers);
        restored.addAll(second.answers);

        assertSameAnswers(restored, uninterrupted);
    }

    /** The same features and retry flags, answer by answer. */
    private static void assertSameAnswers(
            List<ArrivalFeatures> answers, List<ArrivalFeatures> expected) {
        assertThat(answers).hasSameSizeAs(expected);
        for (int i = 0; i < answers.size(); i++) {
            assertThat(answers.get(i).features)
                    .as("answer %d", i)
                    .isEqualTo(expected.get(i).features);
            assertThat(answers.get(i).retry).as("retry %d", i).isEqualTo(expected.get(i).retry);
        }
    }

    /**
     * A savepoint of a build of the first state layout (a map entry per received transaction):
     * restored, each user's state moves into its value the first time the user is touched (an
     * arrival or its timer), the answers are those of a run without the restore, and once every
     * entry left, nothing of either layout is left.
     */
    @ParameterizedTest(name = "heap={0}")
    @ValueSource(booleans = {true, false})
    void stateOfTheFirstLayoutRestoresIntoTheSameAnswers(boolean heap) throws Exception {
        // The first layout kept no answer past its eviction time, so the cut is where this build
        // keeps none either: in a stretch of traffic that arrives on time and is not retried (both
        // runs then hold the same state), after late and retried traffic, before more of it.
        List<Step> steps = randomSteps(new Random(78), 400, 150, 250);
        int cut = steps.size() / 2;
        List<ArrivalFeatures> uninterrupted = run(steps, 0, steps.size(), heap, null).answers;

        TrailingHarness before = openOn(heap, null);
        List<ArrivalFeatures> answers = new ArrayList<>();
        OperatorSubtaskState firstLayout;
        try {
            feed(before, steps.subList(0, cut));
            while (before.entriesKeptPastEviction() > 0) {
                feed(before, steps.subList(cut, cut + 1));
                cut++;
            }
            assertThat(cut).as("cut inside the on-time stretch").isLessThan(steps.size() * 5 / 8);
            int entries = before.stateEntries();
            assertThat(entries).as("users with state at the cut").isPositive();
            before.rewriteInFirstLayout();
            assertThat(before.stateEntries()).isZero();
            assertThat(before.firstLayoutUsers()).isNotEmpty();
            answers.addAll(before.answers());
            firstLayout = before.trailing.snapshot(1, 1);
        } finally {
            before.close();
        }
        TrailingHarness after = openOn(heap, firstLayout);
        try {
            feed(after, steps.subList(cut, steps.size()));
            answers.addAll(after.answers());
            assertSameAnswers(answers, uninterrupted);
            after.watermark(Long.MAX_VALUE);
            assertThat(after.stateEntries()).isZero();
            assertThat(after.firstLayoutUsers()).as("nothing of the first layout left").isEmpty();
            assertThat(after.timers()).isZero();
        } finally {
            after.close();
        }
    }

    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {1, 2, 3, 42, 2025})
    void randomInputsGetTheOraclesFeaturesOneAnswerPerArrivalAndTheDefinitionWhenComplete(long seed)
            throws Exception {
        Random random = new Random(seed);
        List<Step> steps = randomSteps(random, 600);
        TrailingHarness h = open();
        NaiveOperator naive = new NaiveOperator(T.toMillis(), L.toMillis());
        List<Transaction> receivedSoFar = new ArrayList<>();
        Map<String, TransactionFeatures> firstAnswer = new HashMap<>();
        int arrivals = 0;
        int complete = 0;
        for (Step step : steps) {
            if (step.tx() == null) {
                h.watermark(step.watermark());
                naive.watermark(step.watermark());
                continue;
            }
            Transaction x = step.tx();
            arrivals++;
            h.process(x);
            ArrivalFeatures answer = h.last();
            assertThat(h.answers()).hasSize(arrivals);
            assertThat(answer.features.getTransactionId()).isEqualTo(x.getTransactionId());
            NaiveOperator.Answer expected = naive.arrive(x);
            assertThat(NaiveOperator.Answer.of(answer.features))
                    .as("arrival %d: %s", arrivals, x.getTransactionId())
                    .isEqualTo(expected);
            assertThat(answer.retry).isEqualTo(expected.retry());
            // Within the bound, the answer is the definition over everything received before.
            if (answer.features.getHistoryComplete() && !answer.retry) {
                complete++;
                TrailingFeatures.Result definition = TrailingFeatures.compute(receivedSoFar, x, T);
                TransactionFeatures.Builder b = TransactionFeatures.newBuilder(answer.features);
                assertThat(definition.writeTo(b).build()).isEqualTo(answer.features);
            }
            if (!answer.retry) {
                firstAnswer.putIfAbsent(x.getTransactionId(), answer.features);
            }
            receivedSoFar.add(x);
        }
        assertThat(complete).isGreaterThan(arrivals / 2);
        assertThat(h.answers().stream().filter(a -> !a.features.getHistoryComplete()))
                .as("the random input has transactions beyond the bound")
                .isNotEmpty();
        // Every retry answered from state got exactly its original's features.
        for (ArrivalFeatures a : h.answers()) {
            if (a.retry) {
                assertThat(a.features).isEqualTo(firstAnswer.get(a.features.getTransactionId()));
            }
        }
        h.watermark(Long.MAX_VALUE);
        assertThat(h.stateEntries()).isZero();
        assertThat(h.rawStateEntries()).isZero();
        assertThat(h.timers()).isZero();
    }

    // ---- random input and a naive model of the operator ----

    /** A transaction arriving, or a watermark (tx null). */
    record Step(Transaction tx, long watermark) {}

    /**
     * Random arrivals over three users and two hours with a watermark after each (bounded
     * out-of-orderness of 30 s over the largest event time seen, as the replay does): mostly a few
     * seconds late, some minutes late (within and beyond the allowed lateness), a few an hour late;
     * a fifth of them retried later, some with another payload.
     */
    static List<Step> randomSteps(Random random, int n) {
        return randomSteps(random, n, n, n);
    }

    /**
     * As above, arrivals {@code calmFrom} to {@code calmTo} (exclusive) on time and not retried.
     */
    static List<Step> randomSteps(Random random, int n, int calmFrom, int calmTo) {
        List<Step> steps = new ArrayList<>();
        List<Transaction> sent = new ArrayList<>();
        long clock = AT;
        long maxEventTime = Long.MIN_VALUE;
        long watermark = Long.MIN_VALUE;
        for (int i = 0; i < n; i++) {
            Transaction x;
            boolean calm = i >= calmFrom && i < calmTo;
            if (!calm && !sent.isEmpty() && random.nextInt(6) == 0) {
                Transaction original =
                        sent.get(sent.size() - 1 - random.nextInt(Math.min(30, sent.size())));
                x = Transaction.newBuilder(original).build();
                if (random.nextBoolean()) {
                    x.setAmountMinor(original.getAmountMinor() + 1);
                    x.setDeviceId("d-dup");
                }
            } else {
                clock += random.nextInt(40_000);
                int kind = calm ? 0 : random.nextInt(20);
                long delay =
                        kind < 14
                                ? random.nextInt(10_000)
                                : kind < 19
                                        ? random.nextInt(6 * (int) MINUTE)
                                        : 40 * MINUTE + random.nextInt(30 * (int) MINUTE);
                x =
                        tx(
                                "t" + i,
                                List.of("u1", "u2", "u3").get(random.nextInt(3)),
                                1 + random.nextInt(10_000),
                                "d" + random.nextInt(3),
                                "m" + random.nextInt(4),
                                List.of("DE", "FR").get(random.nextInt(2)),
                                clock - delay);
                sent.add(x);
            }
            steps.add(new Step(x, 0));
            maxEventTime = Math.max(maxEventTime, x.getEventTime().toEpochMilli());
            long next = maxEventTime - 30_000 - 1;
            if (next > watermark) {
                watermark = next;
                steps.add(new Step(null, watermark));
            }
        }
        return steps;
    }

    private record Run(List<ArrivalFeatures> answers, OperatorSubtaskState snapshot) {}

    private Run run(List<Step> steps, int from, int to, boolean heap, OperatorSubtaskState restore)
            throws Exception {
        TrailingHarness h = openOn(heap, restore);
        try {
            feed(h, steps.subList(from, to));
            return new Run(new ArrayList<>(h.answers()), h.trailing.snapshot(1, 1));
        } finally {
            h.close();
        }
    }

    private static TrailingHarness openOn(boolean heap, OperatorSubtaskState restore)
            throws Exception {
        return TrailingHarness.open(
                TrailingHarness.spec(T, L),
                heap ? null : new EmbeddedRocksDBStateBackend(),
                restore);
    }

    private static void feed(TrailingHarness h, List<Step> steps) throws Exception {
        for (Step s : steps) {
            if (s.tx() == null) {
                h.watermark(s.watermark());
            } else {
                h.process(s.tx());
            }
        }
    }

    /**
     * The operator's contract re-done the obvious way: per user a list of stored transactions with
     * their answers, evicted when the watermark reaches event time + T + L; an arriving id found
     * there gets its stored answer; otherwise the features are counted with sets over the stored
     * transactions in (t - T, t] plus x, and x is stored unless already past its eviction time;
     * every answer is kept for retries until the watermark reaches max(t, highest watermark) + T +
     * L, after its eviction as answered-only.
     */
    static final class NaiveOperator {
        private final long t;
        private final long l;
        private final Map<String, LinkedHashMap<String, Stored>> users = new HashMap<>();
        private long watermark = Long.MIN_VALUE;
        private long highest = Long.MIN_VALUE;

        private record Stored(Transaction tx, Answer answer) {}

        /** A transaction no longer counted, kept for retries until the watermark reaches it. */
        private record AnsweredOnly(Answer answer, long until) {}

        /** Per stored transaction id: until when its answer is kept for retries. */
        private final Map<String, Long> keptUntil = new HashMap<>();

        private final Map<String, Map<String, AnsweredOnly>> answeredOnly = new HashMap<>();

        record Answer(
                long txCount,
                long amountSum,
                long amountMax,
                int devices,
                int merchants,
                int countries,
                boolean newDevice,
                boolean newMerchant,
                boolean newCountry,
                boolean complete,
                boolean retry) {

            static Answer of(TransactionFeatures f) {
                return new Answer(
                        f.getTxCount(),
                        f.getAmountSum(),
                        f.getAmountMax(),
                        f.getDistinctDevices(),
                        f.getDistinctMerchants(),
                        f.getDistinctCountries(),
                        f.getNewDevice(),
                        f.getNewMerchant(),
                        f.getNewCountry(),
                        f.getHistoryComplete(),
                        false);
            }

            Answer asRetry() {
                return new Answer(
                        txCount,
                        amountSum,
                        amountMax,
                        devices,
                        merchants,
                        countries,
                        newDevice,
                        newMerchant,
                        newCountry,
                        complete,
                        true);
            }

            @Override
            public boolean equals(Object o) {
                // the retry flag is compared separately
                return o instanceof Answer a
                        && a.txCount == txCount
                        && a.amountSum == amountSum
                        && a.amountMax == amountMax
                        && a.devices == devices
                        && a.merchants == merchants
                        && a.countries == countries
                        && a.newDevice == newDevice
                        && a.newMerchant == newMerchant
                        && a.newCountry == newCountry
                        && a.complete == complete;
            }

            @Override
            public int hashCode() {
                return Long.hashCode(txCount);
            }
        }

        NaiveOperator(long trailing, long lateness) {
            this.t = trailing;
            this.l = lateness;
        }

        /**
         * Per user with entries: the largest event time that left (or was never stored), from what
         * may have left when its state started (highest watermark - T - L); no key once the user's
         * entries are all gone.
         */
        private final Map<String, Long> evictedThrough = new HashMap<>();

        void watermark(long w) {
            watermark = Math.max(watermark, w);
            highest = Math.max(highest, w);
            for (Map.Entry<String, LinkedHashMap<String, Stored>> user : users.entrySet()) {
                long through = evictedThrough.getOrDefault(user.getKey(), Long.MIN_VALUE);
                Map<String, AnsweredOnly> answered =
                        answeredOnly.computeIfAbsent(user.getKey(), u -> new HashMap<>());
                answered.values().removeIf(a -> a.until() <= watermark);
                for (var it = user.getValue().entrySet().iterator(); it.hasNext(); ) {
                    var stored = it.next();
                    long e = stored.getValue().tx().getEventTime().toEpochMilli();
                    if (e + t + l <= watermark) {
                        it.remove();
                        through = Math.max(through, e);
                        long until = keptUntil.remove(stored.getKey());
                        if (until > watermark) {
                            answered.put(
                                    stored.getKey(),
                                    new AnsweredOnly(stored.getValue().answer(), until));
                        }
                    }
                }
                if (user.getValue().isEmpty() && answered.isEmpty()) {
                    evictedThrough.remove(user.getKey());
                } else {
                    evictedThrough.put(user.getKey(), through);
                }
            }
        }

        /**
         * The definition of {@code historyComplete}: nothing of x's window {@code (at - T, at]} has
         * left the user's state; a user without state is judged by the highest watermark.
         */
        private boolean complete(String user, long at) {
            return through(user) == Long.MIN_VALUE || through(user) <= at - t;
        }

        private long through(String user) {
            Long through = evictedThrough.get(user);
            return through != null
                    ? through
                    : highest == Long.MIN_VALUE ? Long.MIN_VALUE : highest - t - l;
        }

        Answer arrive(Transaction x) {
            LinkedHashMap<String, Stored> stored =
                    users.computeIfAbsent(x.getUserId(), u -> new LinkedHashMap<>());
            Stored found = stored.get(x.getTransactionId());
            if (found != null) {
                return found.answer().asRetry();
            }
            AnsweredOnly answered =
                    answeredOnly
                            .computeIfAbsent(x.getUserId(), u -> new HashMap<>())
                            .get(x.getTransactionId());
            if (answered != null) {
                return answered.answer().asRetry();
            }
            long at = x.getEventTime().toEpochMilli();
            Set<String> devices = new HashSet<>();
            Set<String> merchants = new HashSet<>();
            Set<String> countries = new HashSet<>();
            long count = 1;
            long sum = x.getAmountMinor();
            long max = x.getAmountMinor();
            for (Stored s : stored.values()) {
                long e = s.tx().getEventTime().toEpochMilli();
                if (e > at - t && e <= at) {
                    count++;
                    sum += s.tx().getAmountMinor();
                    max = Math.max(max, s.tx().getAmountMinor());
                    devices.add(s.tx().getDeviceId());
                    merchants.add(s.tx().getMerchantId());
                    countries.add(s.tx().getCountry());
                }
            }
            boolean newDevice = devices.add(x.getDeviceId());
            boolean newMerchant = merchants.add(x.getMerchantId());
            boolean newCountry = countries.add(x.getCountry());
            Answer a =
                    new Answer(
                            count,
                            sum,
                            max,
                            devices.size(),
                            merchants.size(),
                            countries.size(),
                            newDevice,
                            newMerchant,
                            newCountry,
                            complete(x.getUserId(), at),
                            false);
            long until = Math.max(at, highest) + t + l;
            if (at + t + l > watermark) {
                evictedThrough.putIfAbsent(x.getUserId(), through(x.getUserId()));
                stored.put(x.getTransactionId(), new Stored(x, a));
                keptUntil.put(x.getTransactionId(), until);
            } else {
                evictedThrough.put(x.getUserId(), Math.max(through(x.getUserId()), at));
                answeredOnly
                        .get(x.getUserId())
                        .put(x.getTransactionId(), new AnsweredOnly(a, until));
            }
            return a;
        }
    }
}
