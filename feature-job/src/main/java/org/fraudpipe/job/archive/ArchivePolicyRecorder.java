package org.fraudpipe.job.archive;

import java.time.Instant;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.functions.RichMapFunction;
import org.apache.flink.core.fs.Path;
import org.fraudpipe.schemas.avro.ArchivedTransaction;

/**
 * Records the job's {@link ArchivePolicy} in the archive from the TaskManagers, the side that
 * writes the archive: subtask 0 of the transactions archive's path writes it when it opens (every
 * start, restore and failover), {@link ArchivePolicy#record idempotently}. Records pass through
 * unchanged; stateless.
 *
 * <p>Why here and not on the client before submission: the archive is a file system the
 * TaskManagers share and the client may not reach (a mount of the cluster's); and a failure to
 * write is then a failure of the archive itself, which restarts the job like any sink failure,
 * instead of a policy silently missing.
 */
final class ArchivePolicyRecorder
        extends RichMapFunction<ArchivedTransaction, ArchivedTransaction> {

    private static final long serialVersionUID = 1L;

    private final String root;
    private final ArchivePolicy policy;
    private final boolean sinceNow;

    /**
     * @param sinceNow whether the policy is in force from now on (the streaming job), or since
     *     always (a replay)
     */
    ArchivePolicyRecorder(Path root, ArchivePolicy policy, boolean sinceNow) {
        this.root = root.toString();
        this.policy = policy;
        this.sinceNow = sinceNow;
    }

    @Override
    public void open(OpenContext openContext) throws Exception {
        if (getRuntimeContext().getTaskInfo().getIndexOfThisSubtask() == 0) {
            ArchivePolicy.record(new Path(root), policy, sinceNow ? Instant.now() : null);
        }
    }

    @Override
    public ArchivedTransaction map(ArchivedTransaction value) {
        return value;
    }
}
