package org.fraudpipe.job.savepoint;

import java.io.DataInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import org.apache.flink.runtime.checkpoint.Checkpoints;
import org.apache.flink.runtime.checkpoint.OperatorState;
import org.apache.flink.runtime.checkpoint.metadata.CheckpointMetadata;
import org.apache.flink.runtime.jobgraph.OperatorID;
import org.apache.flink.runtime.state.CompletedCheckpointStorageLocation;
import org.apache.flink.runtime.state.filesystem.AbstractFsCheckpointStorageAccess;
import org.apache.flink.shaded.guava33.com.google.common.hash.Hashing;
import org.fraudpipe.job.topology.Uids;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Refuses, before the job starts, a savepoint that holds the first release's window state: without
 * this, Flink would refuse it too ("cannot map state ... operator not available"), without saying
 * why or what to do. Reads only the savepoint's metadata with Flink's runtime, so the job jar needs
 * no State Processor API (the migration itself, {@code org.fraudpipe.job.savepoint.migrate}, ships
 * in the savepoint tool's jar).
 */
public final class SavepointGuard {

    private static final Logger LOG = LoggerFactory.getLogger(SavepointGuard.class);

    private SavepointGuard() {}

    /**
     * The operator id Flink derives from a user-given uid (murmur3-128 of the uid, seed 0), the id
     * a savepoint's operator states are keyed by. {@code SavepointGuardTest} checks it against the
     * State Processor API's {@code OperatorIdentifier.forUid}.
     */
    public static OperatorID operatorIdOf(String uid) {
        return new OperatorID(
                Hashing.murmur3_128(0)
                        .newHasher()
                        .putString(uid, StandardCharsets.UTF_8)
                        .hash()
                        .asBytes());
    }

    /**
     * Whether the savepoint at {@code path} holds state of the first release's window operator
     * ({@link Uids#FEATURE_WINDOW_V1}), i.e. needs {@code ./fraud savepoint migrate} before this
     * build can restore it.
     *
     * @throws IOException if the savepoint's metadata cannot be read
     */
    public static boolean needsMigration(String path) throws IOException {
        OperatorID v1 = operatorIdOf(Uids.FEATURE_WINDOW_V1);
        for (OperatorState state : metadata(path).getOperatorStates()) {
            if (state.getOperatorID().equals(v1) && state.getStateSize() > 0) {
                return true;
            }
        }
        return false;
    }

    /**
     * Refuses to restore the job from {@code path} if it needs a migration first. A savepoint this
     * client cannot read (a file system it has no plugin for) is left to Flink's own check.
     *
     * @throws IllegalStateException naming the savepoint and the command that migrates it
     */
    public static void refuseUnmigrated(String path) {
        boolean needed;
        try {
            needed = needsMigration(path);
        } catch (IOException | RuntimeException e) {
            LOG.warn(
                    "Could not read savepoint {} before the restore ({}): Flink checks it when the"
                            + " job starts",
                    path,
                    e.toString());
            return;
        }
        if (needed) {
            throw new IllegalStateException(
                    "savepoint "
                            + path
                            + " holds the first release's window state (operator uid '"
                            + Uids.FEATURE_WINDOW_V1
                            + "'), which this build keeps differently. Migrate it first, then"
                            + " restore from the migrated copy: ./fraud savepoint migrate --from "
                            + path
                            + " --to <new directory> --window-size <as the job> --allowed-lateness"
                            + " <as the job> (on a cluster: the savepoint tool's jar, docs/DEPLOY.md,"
                            + " \"Savepoints and upgrades\")");
        }
    }

    private static CheckpointMetadata metadata(String path) throws IOException {
        CompletedCheckpointStorageLocation location =
                AbstractFsCheckpointStorageAccess.resolveCheckpointPointer(path);
        try (DataInputStream in =
                new DataInputStream(location.getMetadataHandle().openInputStream())) {
            return Checkpoints.loadCheckpointMetadata(
                    in, Thread.currentThread().getContextClassLoader(), path);
        }
    }
}
