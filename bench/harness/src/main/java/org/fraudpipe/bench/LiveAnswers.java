package org.fraudpipe.bench;

import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.fraudpipe.job.metrics.LatencyHistogram;
import org.fraudpipe.schemas.avro.TransactionFeatures;
import org.fraudpipe.schemas.avro.TransactionScore;

/**
 * What a live-paced run's readers collect: the answers per transaction and the window results, each
 * timed. Pure bookkeeping over decoded records (the decoding is the reader's handler), so it is
 * tested without a broker.
 */
final class LiveAnswers {

    private LiveAnswers() {}

    /**
     * The per-transaction answers ({@code TransactionScore}s: the job's scores at arrival, the SQL
     * peer's OVER rows). Timed: answers to measured, not-retried events (a retried id is answered
     * twice, the second time with the first arrival's Kafka timestamp, so it is left out of the
     * latency altogether: the retries are chosen at random, so leaving them out biases nothing).
     * Two latencies per answer: to the hand-over to the sink ({@code scoredAt}, the job's metric's
     * definition) and to the consumer's receipt, both from the transaction's Kafka timestamp.
     * Features of the transactions of sampled users are kept for the equality check.
     */
    static final class Transactions {

        /** The per-second series counts answers slower than this (the target's p99 bound). */
        static final long SLOW_MILLIS = 50;

        /** Features kept per answer: the six, then historyComplete (1/0). */
        static final int FIELDS = 7;

        private final LiveTraffic traffic;
        private final long measuredFrom;
        private final long measuredTo;
        private final long sampleModulus;
        final LatencyHistogram toSink = new LatencyHistogram();
        final LatencyHistogram toConsumer = new LatencyHistogram();
        final Map<Long, long[]> sampled = new HashMap<>();

        /**
         * Per second of Kafka append time (epoch second) of the timed answers: {count, max latency
         * to the consumer, answers over 50 ms}, to tell a steady latency from stalls (window-close
         * bursts, checkpoints, the machine's other load).
         */
        final java.util.TreeMap<Long, long[]> perSecond = new java.util.TreeMap<>();

        /** Per second of append time: the latencies to the sink and to the consumer. */
        final java.util.TreeMap<Long, LatencyHistogram[]> perSecondLatency =
                new java.util.TreeMap<>();

        long answers;
        long pings;
        long measuredAnswers;
        long retriedAnswers;
        long historyIncomplete;
        long unknown;

        /**
         * @param measuredFrom first measured event index
         * @param measuredTo end (exclusive) of the measured indices
         * @param sampleModulus users whose number is a multiple of this have their features kept
         */
        Transactions(LiveTraffic traffic, long measuredFrom, long measuredTo, long sampleModulus) {
            this.traffic = traffic;
            this.measuredFrom = measuredFrom;
            this.measuredTo = measuredTo;
            this.sampleModulus = Math.max(1, sampleModulus);
        }

        void accept(TransactionScore s, long receiptWallMillis) {
            answers++;
            long i = LiveTraffic.index(s.getTransactionId());
            if (i < 0) {
                if (s.getUserId().startsWith(LiveTraffic.PING_USER_PREFIX)) {
                    pings++;
                } else {
                    unknown++;
                }
                return;
            }
            TransactionFeatures f = s.getFeatures();
            if (!f.getHistoryComplete()) {
                historyIncomplete++;
            }
            long user = LiveTraffic.userNumber(s.getUserId());
            if (user >= 0 && user % sampleModulus == 0) {
                sampled.putIfAbsent(
                        i,
                        new long[] {
                            f.getTxCount(),
                            f.getAmountSum(),
                            f.getAmountMax(),
                            f.getDistinctDevices(),
                            f.getDistinctMerchants(),
                            f.getDistinctCountries(),
                            f.getHistoryComplete() ? 1 : 0
                        });
            }
            if (i < measuredFrom || i >= measuredTo) {
                return;
            }
            if (traffic.retried(i)) {
                retriedAnswers++;
                return;
            }
            measuredAnswers++;
            if (s.getRecordTimestamp() != null) {
                long appended = s.getRecordTimestamp().toEpochMilli();
                toSink.record(s.getScoredAt().toEpochMilli() - appended);
                long consumer = receiptWallMillis - appended;
                toConsumer.record(consumer);
                long second = Math.floorDiv(appended, 1000L);
                LatencyHistogram[] h =
                        perSecondLatency.computeIfAbsent(
                                second,
                                k ->
                                        new LatencyHistogram[] {
                                            new LatencyHistogram(), new LatencyHistogram()
                                        });
                h[0].record(s.getScoredAt().toEpochMilli() - appended);
                h[1].record(consumer);
                long[] sec = perSecond.computeIfAbsent(second, k -> new long[3]);
                sec[0]++;
                sec[1] = Math.max(sec[1], consumer);
                if (consumer > SLOW_MILLIS) {
                    sec[2]++;
                }
            }
        }

        Map<String, Object> report(long expectedMeasured) {
            return report(expectedMeasured, Map.of());
        }

        /**
         * The report; {@code stalls} names the seconds (epoch seconds of append time) that held a
         * checkpoint or a window-close burst, and what ({@code checkpoint}, {@code burst}, or
         * both): the per-second series marks them, and the latencies of their answers are set
         * against those of every other second (issue #29's target: p99 at most 2x).
         */
        Map<String, Object> report(long expectedMeasured, Map<Long, String> stalls) {
            Map<String, Object> r = new LinkedHashMap<>();
            r.put("answers", answers);
            r.put("readinessAnswers", pings);
            r.put("measuredTransactionsExpected", expectedMeasured);
            r.put("measuredTransactionsAnswered", measuredAnswers);
            r.put(
                    "answeredShare",
                    expectedMeasured == 0 ? null : measuredAnswers / (double) expectedMeasured);
            r.put("retriedAnswersLeftOut", retriedAnswers);
            r.put("historyIncomplete", historyIncomplete);
            r.put("unknownIds", unknown);
            r.put("appendToSink", toSink.getLocalValue().summary());
            r.put("appendToConsumer", toConsumer.getLocalValue().summary());
            java.util.List<java.util.List<Object>> series = new java.util.ArrayList<>();
            long slowSeconds = 0;
            LatencyHistogram[] inStalls = {new LatencyHistogram(), new LatencyHistogram()};
            LatencyHistogram[] others = {new LatencyHistogram(), new LatencyHistogram()};
            long stallSeconds = 0;
            for (Map.Entry<Long, long[]> e : perSecond.entrySet()) {
                long[] v = e.getValue();
                LatencyHistogram[] h = perSecondLatency.get(e.getKey());
                String stall = stalls.getOrDefault(e.getKey(), "");
                series.add(
                        java.util.List.of(
                                e.getKey(),
                                v[0],
                                v[1],
                                v[2],
                                h[0].getLocalValue().percentile(0.99),
                                h[1].getLocalValue().percentile(0.99),
                                stall));
                if (v[2] > 0) {
                    slowSeconds++;
                }
                LatencyHistogram[] into = stall.isEmpty() ? others : inStalls;
                if (!stall.isEmpty()) {
                    stallSeconds++;
                }
                into[0].merge(h[0]);
                into[1].merge(h[1]);
            }
            if (!stalls.isEmpty()) {
                Map<String, Object> cls = new LinkedHashMap<>();
                cls.put("stallSeconds", stallSeconds);
                cls.put("otherSeconds", perSecond.size() - stallSeconds);
                cls.put("stallAppendToSink", inStalls[0].getLocalValue().summary());
                cls.put("otherAppendToSink", others[0].getLocalValue().summary());
                cls.put("stallAppendToConsumer", inStalls[1].getLocalValue().summary());
                cls.put("otherAppendToConsumer", others[1].getLocalValue().summary());
                cls.put(
                        "p99RatioToSink",
                        ratio(inStalls[0].getLocalValue(), others[0].getLocalValue()));
                cls.put(
                        "p99RatioToConsumer",
                        ratio(inStalls[1].getLocalValue(), others[1].getLocalValue()));
                r.put("stallsAgainstOtherSeconds", cls);
            }
            r.put("secondsWithAnAnswerOver" + SLOW_MILLIS + "Ms", slowSeconds);
            r.put("secondsTimed", (long) perSecond.size());
            r.put(
                    "perAppendSecond",
                    Map.of(
                            "columns",
                            java.util.List.of(
                                    "epochSecond",
                                    "answers",
                                    "maxAppendToConsumerMillis",
                                    "answersOver" + SLOW_MILLIS + "Ms",
                                    "p99AppendToSinkMillis",
                                    "p99AppendToConsumerMillis",
                                    "stall"),
                            "rows",
                            series));
            return r;
        }

        private static Double ratio(
                LatencyHistogram.Distribution stalls, LatencyHistogram.Distribution others) {
            long o = others.percentile(0.99);
            return stalls.count() == 0 || others.count() == 0 || o <= 0
                    ? null
                    : stalls.percentile(0.99) / (double) o;
        }
    }

    /**
     * The window results ({@code ScoreRecord}s of the job, {@code FeatureRecord}s of the SQL peer),
     * timed from the window's end to the consumer's receipt of its first result (revision 0),
     * read_committed: what a reader of the window topics waits after a window ends. Timed: windows
     * ending in the measured interval, except those of a user and window that received a
     * deliberately late event (their first result may come with the late event, long after the end,
     * in either system: left out of both, chosen at random so no bias).
     */
    static final class Windows {

        private final long endFrom;
        private final long endTo;
        private final Set<String> excluded;
        final LatencyHistogram endToConsumer = new LatencyHistogram();
        long results;
        long firstResults;
        long laterRevisions;
        long measured;
        long excludedResults;

        /**
         * @param endFrom first window end timed (epoch millis)
         * @param endTo last window end timed
         * @param excluded {@link #key}s of user windows left out
         */
        Windows(long endFrom, long endTo, Set<String> excluded) {
            this.endFrom = endFrom;
            this.endTo = endTo;
            this.excluded = excluded;
        }

        static String key(String userId, long windowStartMillis) {
            return userId + "@" + windowStartMillis;
        }

        void accept(
                String userId,
                long windowStart,
                long windowEnd,
                int revision,
                long receiptWallMillis) {
            results++;
            if (userId.startsWith("~")) {
                return;
            }
            if (revision != 0) {
                laterRevisions++;
                return;
            }
            firstResults++;
            if (windowEnd < endFrom || windowEnd > endTo) {
                return;
            }
            if (excluded.contains(key(userId, windowStart))) {
                excludedResults++;
                return;
            }
            measured++;
            endToConsumer.record(receiptWallMillis - windowEnd);
        }

        Map<String, Object> report() {
            Map<String, Object> r = new LinkedHashMap<>();
            r.put("results", results);
            r.put("firstResults", firstResults);
            r.put("laterRevisions", laterRevisions);
            r.put("timedWindowEnds", java.util.List.of(endFrom, endTo));
            r.put("timedResults", measured);
            r.put("leftOutWindowsWithALateEvent", excludedResults);
            r.put("windowEndToConsumer", endToConsumer.getLocalValue().summary());
            return r;
        }
    }

    /** Adapts a reader's record to {@link Transactions}. */
    static LiveReader.Handler transactionHandler(
            Transactions answers,
            org.fraudpipe.schemas.wire.ConfluentAvroCodec<TransactionScore> codec) {
        return (ConsumerRecord<byte[], byte[]> r, long receipt) ->
                answers.accept(codec.decode(r.value()), receipt);
    }
}
