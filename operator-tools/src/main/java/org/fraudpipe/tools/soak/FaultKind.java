package org.fraudpipe.tools.soak;

/**
 * What the soak's nemesis does to the system under test. The job faults ({@link #exclusive}) run
 * one at a time, each on a job that is running; the environment faults last a while and may overlap
 * with each other and with a job fault.
 */
public enum FaultKind {
    /**
     * The job's JVM killed with SIGKILL, then started again from its newest retained checkpoint.
     */
    JOB_KILL(true),
    /**
     * The job stopped with a savepoint (no drain) and restored from it, one time in three at the
     * other parallelism (2 and 1).
     */
    SAVEPOINT_RESTORE(true),
    /** The broker stopped (SIGTERM), down for a while, and started again on its data. */
    BROKER_RESTART(false),
    /** The schema registry stopped for a while and started again on its journal. */
    REGISTRY_DOWN(false),
    /** The network between job and broker holds every byte for a while (connections stay open). */
    NETWORK_STALL(false),
    /** The network between job and broker closes every connection and refuses new ones. */
    NETWORK_CUT(false),
    /** What the broker sends the job (acknowledgements, fetched records) is delayed. */
    SLOW_ACKS(false),
    /**
     * The job's checkpoint storage refuses its next checkpoints (their directories cannot be made),
     * so checkpoints fail and the job fails over until it heals.
     */
    CHECKPOINT_STORAGE(false),
    /**
     * With {@code --object-store}: the object store holding the checkpoints, savepoints and the
     * archive stopped for a while and started again on its data: checkpoints and the archive's
     * writes fail, and the job fails over until it is back.
     */
    STORAGE_DOWN(false);

    private final boolean exclusive;

    FaultKind(boolean exclusive) {
        this.exclusive = exclusive;
    }

    /** Whether it acts on the job itself (one at a time, on a running job). */
    public boolean exclusive() {
        return exclusive;
    }
}
