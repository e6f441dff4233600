package org.fraudpipe.tools.soak;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Set;

/**
 * One campaign's settings ({@code ./fraud soak}'s options).
 *
 * @param duration how long traffic is published (and faults injected, but for {@code quietEnd})
 * @param users card holders simulated
 * @param txPerUserDay their transactions per day of event time
 * @param speedup how much faster than real time the traffic's event time runs
 * @param seed of the traffic and of the fault schedule
 * @param faultEvery the mean time between two faults' starts
 * @param kinds the kinds of fault drawn from
 * @param quietEnd the last part of the duration without new faults, so that the job's recovery from
 *     the last ones is seen while traffic still flows
 * @param parallelism the job's at the start (a rescale flips it between 1 and 2)
 * @param objectStore whether checkpoints, savepoints and the archive are on a local object store
 *     ({@code s3p://}, {@code s3a://}) rather than local files
 * @param dir the run directory
 */
record SoakSettings(
        Duration duration,
        int users,
        double txPerUserDay,
        double speedup,
        long seed,
        Duration faultEvery,
        Set<FaultKind> kinds,
        Duration quietEnd,
        int parallelism,
        boolean objectStore,
        Path dir) {

    SoakSettings {
        if (duration.compareTo(quietEnd) <= 0) {
            throw new IllegalArgumentException(
                    "--duration must be longer than the quiet end (" + quietEnd + ")");
        }
        if (kinds.isEmpty()) {
            throw new IllegalArgumentException("--faults must name at least one kind");
        }
        if (kinds.contains(FaultKind.STORAGE_DOWN) && !objectStore) {
            throw new IllegalArgumentException("--faults storage-down needs --object-store");
        }
        if (faultEvery.isNegative() || faultEvery.isZero()) {
            throw new IllegalArgumentException("--fault-every must be positive");
        }
    }
}
