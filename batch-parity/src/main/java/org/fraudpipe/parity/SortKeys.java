package org.fraudpipe.parity;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.function.Function;

/**
 * The keys parity's judges are keyed by: 64-bit fingerprints of a user (the per-transaction check)
 * or of a (user, window start) (the window check), not the strings themselves. Flink's BATCH
 * execution sorts every keyed input by key, comparing at each step; a fixed-length key is compared
 * as a few bytes of its normalized form, a string key byte by byte through the sort's paged views.
 *
 * <p>Invariant: a fingerprint groups, it never identifies. Two users (or windows) may share one, so
 * a judge regroups a key's evidence by the exact identity ({@link #groups}) and judges each group
 * on its own: a collision costs a map, never a merged verdict.
 */
public final class SortKeys {

    private SortKeys() {}

    /** The sort key of everything about {@code userId}. */
    public static long user(String userId) {
        return mix(hash(userId));
    }

    /** The sort key of everything about {@code userId}'s window starting at {@code windowStart}. */
    public static long window(String userId, long windowStart) {
        return mix(hash(userId) ^ mix(windowStart));
    }

    /**
     * {@code all} split by the exact {@code identity} of each element, in the identities' order,
     * each group in its input order; {@code all} itself when every element has the same one (the
     * case but for a fingerprint collision).
     */
    public static <T, K extends Comparable<K>> Collection<List<T>> groups(
            List<T> all, Function<T, K> identity) {
        if (all.isEmpty()) {
            return List.of();
        }
        K first = identity.apply(all.get(0));
        boolean one = true;
        for (T t : all) {
            if (!Objects.equals(identity.apply(t), first)) {
                one = false;
                break;
            }
        }
        if (one) {
            return List.of(all);
        }
        Map<K, List<T>> byIdentity = new TreeMap<>();
        for (T t : all) {
            byIdentity.computeIfAbsent(identity.apply(t), k -> new ArrayList<>()).add(t);
        }
        return byIdentity.values();
    }

    /** 64-bit FNV-1a over the string's chars. */
    private static long hash(String s) {
        long h = 0xcbf29ce484222325L;
        for (int i = 0; i < s.length(); i++) {
            h ^= s.charAt(i);
            h *= 0x100000001b3L;
        }
        return h;
    }

    /** MurmurHash3's 64-bit finalizer: every input bit moves every output bit. */
    private static long mix(long h) {
        h ^= h >>> 33;
        h *= 0xff51afd7ed558ccdL;
        h ^= h >>> 33;
        h *= 0xc4ceb9fe1a85ec53L;
        h ^= h >>> 33;
        return h;
    }
}
