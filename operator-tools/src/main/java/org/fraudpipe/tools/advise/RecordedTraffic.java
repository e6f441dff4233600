package org.fraudpipe.tools.advise;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Recorded traffic in its arrival order, compactly: one entry per valid transaction received
 * (producer retries included, future-dated ones flagged), as primitive arrays, so that a day of a
 * million transactions takes tens of megabytes and every policy can be replayed over it in a
 * fraction of a second. Users and transaction ids are interned to dense ints; partitions are named
 * ({@code topic-partition}, or the replay file's name).
 *
 * <p>What is not here: records that never became a transaction (dead letters) are only counted;
 * they reach no window and move no watermark.
 */
final class RecordedTraffic {

    final String source;
    final List<String> partitionNames;
    final int size;
    final long[] eventTime;
    final long[] arrival;
    final int[] user;
    final int[] transaction;
    final int[] partition;
    final boolean[] futureDated;
    final int users;
    final int transactionIds;
    final long deadLetters;

    private RecordedTraffic(Builder b, int[] order) {
        this.source = b.source;
        this.partitionNames = List.copyOf(b.partitionNames);
        this.size = b.size;
        this.eventTime = new long[size];
        this.arrival = new long[size];
        this.user = new int[size];
        this.transaction = new int[size];
        this.partition = new int[size];
        this.futureDated = new boolean[size];
        for (int i = 0; i < size; i++) {
            int from = order == null ? i : order[i];
            eventTime[i] = b.eventTime[from];
            arrival[i] = b.arrival[from];
            user[i] = b.user[from];
            transaction[i] = b.transaction[from];
            partition[i] = b.partition[from];
            futureDated[i] = b.futureDated[from];
        }
        this.users = b.userIds.size();
        this.transactionIds = b.transactionIds.size();
        this.deadLetters = b.deadLetters;
    }

    /** Whether the entry may reach a window and move the watermark (valid, not future-dated). */
    boolean isWindowable(int i) {
        return !futureDated[i];
    }

    /** Collects entries in the order they are read; {@link #build} puts them in arrival order. */
    static final class Builder {
        private final String source;
        private final List<String> partitionNames = new ArrayList<>();
        private final Map<String, Integer> partitionIds = new HashMap<>();
        private final Map<String, Integer> userIds = new HashMap<>();
        private final Map<String, Integer> transactionIds = new HashMap<>();
        private int size;
        private long[] eventTime = new long[1024];
        private long[] arrival = new long[1024];
        private long[] offset = new long[1024];
        private int[] user = new int[1024];
        private int[] transaction = new int[1024];
        private int[] partition = new int[1024];
        private boolean[] futureDated = new boolean[1024];
        private long deadLetters;

        /**
         * @param source how the input is described to the user
         */
        Builder(String source) {
            this.source = source;
        }

        /** The dense id of a partition name, in the order first seen. */
        int partition(String name) {
            Integer id = partitionIds.get(name);
            if (id == null) {
                id = partitionNames.size();
                partitionNames.add(name);
                partitionIds.put(name, id);
            }
            return id;
        }

        /** One record that never became a transaction. */
        void deadLetter() {
            deadLetters++;
        }

        /** One valid transaction received (its partition from {@link #partition}). */
        void add(
                String transactionId,
                String userId,
                long eventTimeMillis,
                long arrivalMillis,
                int partitionId,
                long offsetInPartition,
                boolean isFutureDated) {
            if (size == eventTime.length) {
                int n = size * 2;
                eventTime = Arrays.copyOf(eventTime, n);
                arrival = Arrays.copyOf(arrival, n);
                offset = Arrays.copyOf(offset, n);
                user = Arrays.copyOf(user, n);
                transaction = Arrays.copyOf(transaction, n);
                partition = Arrays.copyOf(partition, n);
                futureDated = Arrays.copyOf(futureDated, n);
            }
            eventTime[size] = eventTimeMillis;
            arrival[size] = arrivalMillis;
            offset[size] = offsetInPartition;
            user[size] = intern(userIds, userId);
            transaction[size] = intern(transactionIds, transactionId);
            partition[size] = partitionId;
            futureDated[size] = isFutureDated;
            size++;
        }

        int size() {
            return size;
        }

        private static int intern(Map<String, Integer> ids, String key) {
            Integer id = ids.get(key);
            if (id == null) {
                id = ids.size();
                ids.put(key, id);
            }
            return id;
        }

        /** The entries in the order they were added (a replay file: that is its arrival order). */
        RecordedTraffic inReadOrder() {
            return new RecordedTraffic(this, null);
        }

        /**
         * The entries in arrival order across partitions: within a partition by offset (the order
         * its consumer reads it), and across partitions by arrival time (a record at the head of
         * its partition goes before the other heads that arrived later; ties by partition name,
         * then offset). Partitions are renumbered by name (topics, then partition numbers).
         *
         * @param nameOrder compares partition names
         */
        RecordedTraffic inArrivalOrder(java.util.Comparator<String> nameOrder) {
            int p = partitionNames.size();
            Integer[] byName = new Integer[p];
            for (int i = 0; i < p; i++) {
                byName[i] = i;
            }
            Arrays.sort(
                    byName,
                    (a, c) -> nameOrder.compare(partitionNames.get(a), partitionNames.get(c)));
            int[] rank = new int[p];
            List<String> sortedNames = new ArrayList<>();
            for (int r = 0; r < p; r++) {
                rank[byName[r]] = r;
                sortedNames.add(partitionNames.get(byName[r]));
            }
            // Per partition (new numbering), its entries by offset.
            int[] count = new int[p + 1];
            for (int i = 0; i < size; i++) {
                count[rank[partition[i]] + 1]++;
            }
            for (int r = 0; r < p; r++) {
                count[r + 1] += count[r];
            }
            int[] fill = Arrays.copyOf(count, p);
            int[] members = new int[size];
            for (int i = 0; i < size; i++) {
                int r = rank[partition[i]];
                members[fill[r]++] = i;
            }
            for (int r = 0; r < p; r++) {
                sortSlice(members, count[r], count[r + 1], offset);
            }
            // Merge the partitions by the arrival time of their heads.
            int[] head = Arrays.copyOf(count, p);
            java.util.PriorityQueue<Integer> heads =
                    new java.util.PriorityQueue<>(
                            Math.max(1, p),
                            (a, c) -> {
                                int ea = members[head[a]];
                                int ec = members[head[c]];
                                int byTime = Long.compare(arrival[ea], arrival[ec]);
                                return byTime != 0 ? byTime : Integer.compare(a, c);
                            });
            for (int r = 0; r < p; r++) {
                if (head[r] < count[r + 1]) {
                    heads.add(r);
                }
            }
            int[] order = new int[size];
            int n = 0;
            while (!heads.isEmpty()) {
                int r = heads.poll();
                order[n++] = members[head[r]];
                head[r]++;
                if (head[r] < count[r + 1]) {
                    heads.add(r);
                }
            }
            for (int i = 0; i < size; i++) {
                partition[i] = rank[partition[i]];
            }
            partitionNames.clear();
            partitionNames.addAll(sortedNames);
            return new RecordedTraffic(this, order);
        }

        /** Sorts {@code members[from, to)} by {@code offset} of each member, stably. */
        private static void sortSlice(int[] members, int from, int to, long[] offset) {
            boolean sorted = true;
            for (int i = from + 1; i < to && sorted; i++) {
                sorted = offset[members[i - 1]] <= offset[members[i]];
            }
            if (sorted) {
                return;
            }
            Integer[] slice = new Integer[to - from];
            for (int i = from; i < to; i++) {
                slice[i - from] = members[i];
            }
            Arrays.sort(
                    slice,
                    (a, c) -> {
                        int byOffset = Long.compare(offset[a], offset[c]);
                        return byOffset != 0 ? byOffset : Integer.compare(a, c);
                    });
            for (int i = from; i < to; i++) {
                members[i] = slice[i - from];
            }
        }
    }
}
