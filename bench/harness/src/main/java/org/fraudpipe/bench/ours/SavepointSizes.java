package org.fraudpipe.bench.ours;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.flink.runtime.checkpoint.Checkpoints;
import org.apache.flink.runtime.checkpoint.OperatorState;
import org.apache.flink.runtime.checkpoint.metadata.CheckpointMetadata;
import org.apache.flink.runtime.jobgraph.OperatorID;
import org.apache.flink.shaded.guava33.com.google.common.hash.Hashing;

/**
 * Sizes of a savepoint: its directory on disk, and the state of one operator as the savepoint's
 * metadata records it (the sum of its state handles), found by the operator's uid.
 */
final class SavepointSizes {

    private SavepointSizes() {}

    /**
     * The operator id Flink derives from a uid (what {@code StreamGraphHasherV2} does for an
     * operator with {@code .uid(...)}): murmur3-128, seed 0, over the uid's UTF-8 bytes.
     */
    static OperatorID operatorId(String uid) {
        return new OperatorID(
                Hashing.murmur3_128(0)
                        .newHasher()
                        .putString(uid, StandardCharsets.UTF_8)
                        .hash()
                        .asBytes());
    }

    /** Bytes of all files under {@code dir}. */
    static long directoryBytes(Path dir) {
        try (Stream<Path> files = Files.walk(dir)) {
            return files.filter(Files::isRegularFile)
                    .mapToLong(
                            f -> {
                                try {
                                    return Files.size(f);
                                } catch (IOException e) {
                                    throw new UncheckedIOException(e);
                                }
                            })
                    .sum();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot size " + dir, e);
        }
    }

    /** State size per operator uid in {@code uids} (bytes; -1 if the savepoint has none). */
    static Map<String, Long> operatorStateBytes(Path savepointDir, Iterable<String> uids) {
        CheckpointMetadata metadata;
        try (InputStream in = Files.newInputStream(savepointDir.resolve("_metadata"))) {
            metadata =
                    Checkpoints.loadCheckpointMetadata(
                            new DataInputStream(in),
                            SavepointSizes.class.getClassLoader(),
                            savepointDir.toUri().toString());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the savepoint at " + savepointDir, e);
        }
        Map<OperatorID, Long> byId = new LinkedHashMap<>();
        for (OperatorState op : metadata.getOperatorStates()) {
            byId.put(op.getOperatorID(), op.getStateSize());
        }
        Map<String, Long> sizes = new LinkedHashMap<>();
        for (String uid : uids) {
            sizes.put(uid, byId.getOrDefault(operatorId(uid), -1L));
        }
        long total = byId.values().stream().mapToLong(Long::longValue).sum();
        sizes.put("(all operators)", total);
        return sizes;
    }
}
