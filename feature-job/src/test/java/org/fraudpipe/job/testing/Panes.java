package org.fraudpipe.job.testing;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.fraudpipe.schemas.avro.FeatureRecord;
import org.fraudpipe.schemas.avro.ScoreRecord;
import org.fraudpipe.schemas.avro.Timing;

/**
 * What a downstream upsert consumer makes of the features (or scores) topic, and the exactly-once
 * checks on it: every pane of a window at most once, revisions without gaps, the highest revision
 * per (user, window start) as the current value.
 */
public final class Panes {

    private Panes() {}

    /** The upsert key of the features and scores topics. */
    public record Key(String userId, Instant windowStart) implements Comparable<Key> {
        public static Key of(FeatureRecord f) {
            return new Key(f.getUserId(), f.getWindowStart());
        }

        @Override
        public int compareTo(Key o) {
            int c = userId.compareTo(o.userId);
            return c != 0 ? c : windowStart.compareTo(o.windowStart);
        }

        @Override
        public String toString() {
            return userId + "@" + windowStart;
        }
    }

    /** The features of a pane, without its bookkeeping: what stream and batch must agree on. */
    public record Features(
            long txCount,
            long amountSum,
            long amountMax,
            int devices,
            int merchants,
            int countries) {
        public static Features of(FeatureRecord f) {
            return new Features(
                    f.getTxCount(),
                    f.getAmountSum(),
                    f.getAmountMax(),
                    f.getDistinctDevices(),
                    f.getDistinctMerchants(),
                    f.getDistinctCountries());
        }
    }

    /**
     * A pane without its processing-time fields ({@code emittedAt}, {@code watermark}), which
     * differ from run to run: what two runs over the same input must agree on.
     */
    public record Outcome(Features features, int revision, Timing timing, int lateRecordsIncluded) {
        public static Outcome of(FeatureRecord f) {
            return new Outcome(
                    Features.of(f), f.getRevision(), f.getTiming(), f.getLateRecordsIncluded());
        }
    }

    /** The current value per key: the pane with the highest revision. */
    public static Map<Key, FeatureRecord> finalPerKey(Collection<FeatureRecord> panes) {
        Map<Key, FeatureRecord> last = new TreeMap<>();
        for (FeatureRecord f : panes) {
            last.merge(Key.of(f), f, (a, b) -> b.getRevision() > a.getRevision() ? b : a);
        }
        return last;
    }

    /** The features of the current value per key. */
    public static Map<Key, Features> finalFeatures(Collection<FeatureRecord> panes) {
        return mapValues(finalPerKey(panes), Features::of);
    }

    /** The outcome of the current value per key. */
    public static Map<Key, Outcome> finalOutcomes(Collection<FeatureRecord> panes) {
        return mapValues(finalPerKey(panes), Outcome::of);
    }

    /** No pane (key, revision) twice. */
    public static void assertNoPaneTwice(List<FeatureRecord> panes) {
        Map<String, Long> counts =
                panes.stream()
                        .collect(
                                Collectors.groupingBy(
                                        f -> Key.of(f) + "#" + f.getRevision(),
                                        TreeMap::new,
                                        Collectors.counting()));
        assertThat(counts)
                .as("panes (key#revision) written more than once")
                .allSatisfy((k, n) -> assertThat(n).as(k).isEqualTo(1L));
    }

    /**
     * Exactly once, as a {@code read_committed} reader sees it: no pane (key, revision) twice, the
     * revisions of each key are 0, 1, ... without a gap (a lost pane would leave one), and, read in
     * the topic's order, they only go up ({@link #assertNoRevisionRegression}).
     */
    public static void assertEachPaneOnce(List<FeatureRecord> panes) {
        assertNoPaneTwice(panes);
        assertNoRevisionRegression(panes);
        Map<Key, List<Integer>> revisions =
                panes.stream()
                        .collect(
                                Collectors.groupingBy(
                                        Key::of,
                                        TreeMap::new,
                                        Collectors.mapping(
                                                FeatureRecord::getRevision, Collectors.toList())));
        revisions.forEach(
                (key, revs) ->
                        assertThat(revs.stream().sorted().toList())
                                .as("revisions of %s", key)
                                .isEqualTo(
                                        java.util.stream.IntStream.range(0, revs.size())
                                                .boxed()
                                                .toList()));
    }

    /**
     * What an upsert reader holds is the last record per key in the topic's order (a key is always
     * in one partition, and a partition is read in offset order): no key's revision may ever go
     * down or repeat in that order, or the reader would hold an older value than one already served
     * (issue #15, "highest revision wins" enforced, not claimed).
     *
     * @param panesInTopicOrder as read from the topic, in offset order per partition
     */
    public static void assertNoRevisionRegression(List<FeatureRecord> panesInTopicOrder) {
        Map<Key, Integer> last = new TreeMap<>();
        for (FeatureRecord f : panesInTopicOrder) {
            Integer before = last.put(Key.of(f), f.getRevision());
            if (before != null) {
                assertThat(f.getRevision())
                        .as("revision of %s written after revision %d", Key.of(f), before)
                        .isGreaterThan(before);
            }
        }
    }

    /** The scores' panes, for the same checks as the features. */
    public static List<FeatureRecord> scoredPanes(List<ScoreRecord> scores) {
        return scores.stream().map(ScoreRecord::getFeatures).toList();
    }

    private static <V> Map<Key, V> mapValues(
            Map<Key, FeatureRecord> map, Function<FeatureRecord, V> f) {
        Map<Key, V> out = new TreeMap<>();
        map.forEach((k, v) -> out.put(k, f.apply(v)));
        return out;
    }

    /** Panes per key (to count how often a key was written). */
    public static Map<Key, Long> countPerKey(Collection<FeatureRecord> panes) {
        Map<Key, Long> counts = new HashMap<>();
        panes.forEach(f -> counts.merge(Key.of(f), 1L, Long::sum));
        return counts;
    }
}
