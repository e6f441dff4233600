package org.fraudpipe.tools.soak;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * The soak's fault schedule, drawn from a seed: faults start at exponentially distributed intervals
 * (mean {@code meanInterval}), each of a kind drawn uniformly from those enabled and lasting a
 * kind-specific random time. Job faults ({@link FaultKind#exclusive}) run one at a time on the
 * calling thread and return once the job runs again; environment faults start, and end on a timer
 * of their own, so that they overlap with each other and with job faults (never two of one kind,
 * and one of the network's modes at a time).
 *
 * <p>The same seed and settings give the same sequence of kinds, durations and intervals; when each
 * fault really starts depends on how long the job takes to recover from the one before.
 */
final class Nemesis {

    /** One fault as it happened. */
    record Fault(FaultKind kind, Instant start, Instant end, String detail) {}

    /** What the nemesis acts on. Every method returns once the action is done. */
    interface Target {
        /** Kills the job's JVM and starts it again; returns a note (e.g. what it restored). */
        String killJob() throws Exception;

        /** Stops the job with a savepoint and restores it, at the other parallelism if asked. */
        String savepointAndRestore(boolean rescale) throws Exception;

        void stopBroker() throws Exception;

        void startBroker() throws Exception;

        void stopRegistry() throws Exception;

        void startRegistry() throws Exception;

        void link(FaultyLink.Mode mode, long delayMillis);

        /** Blocks the job's next checkpoints; returns what was blocked. */
        String blockCheckpoints() throws Exception;

        void unblockCheckpoints() throws Exception;

        /** Stops the object store (with {@code --object-store}). */
        void stopStorage() throws Exception;

        void startStorage() throws Exception;
    }

    private static final Set<FaultKind> LINK =
            EnumSet.of(FaultKind.NETWORK_STALL, FaultKind.NETWORK_CUT, FaultKind.SLOW_ACKS);

    private final SplittableRandom random;
    private final List<FaultKind> kinds;
    private final Duration meanInterval;
    private final Target target;
    private final Consumer<String> log;
    private final List<Fault> faults = Collections.synchronizedList(new ArrayList<>());

    /** The environment faults in progress: their start and detail. */
    private final java.util.Map<FaultKind, Fault> active =
            java.util.Collections.synchronizedMap(new java.util.EnumMap<>(FaultKind.class));

    private final java.util.concurrent.ExecutorService jobFaults =
            Executors.newSingleThreadExecutor(
                    r -> {
                        Thread t = new Thread(r, "soak-nemesis-job");
                        t.setDaemon(true);
                        return t;
                    });
    private java.util.concurrent.Future<?> jobFault;
    private int skipped;
    private final ScheduledExecutorService timers =
            Executors.newSingleThreadScheduledExecutor(
                    r -> {
                        Thread t = new Thread(r, "soak-nemesis-timer");
                        t.setDaemon(true);
                        return t;
                    });

    Nemesis(
            long seed,
            Set<FaultKind> kinds,
            Duration meanInterval,
            Target target,
            Consumer<String> log) {
        this.random = new SplittableRandom(seed);
        this.kinds = List.copyOf(kinds);
        this.meanInterval = meanInterval;
        this.target = target;
        this.log = log;
    }

    /**
     * Runs faults until {@code until}, then ends every environment fault still active and returns
     * every fault, in start order.
     */
    List<Fault> run(Instant until) throws Exception {
        try {
            while (true) {
                long pause =
                        Math.max(
                                200,
                                (long)
                                        (-Math.log(1 - random.nextDouble())
                                                * meanInterval.toMillis()));
                FaultKind kind = kinds.get(random.nextInt(kinds.size()));
                long duration = duration(kind);
                long delay = kind == FaultKind.SLOW_ACKS ? 100 + random.nextLong(700) : 0;
                boolean rescale = random.nextInt(3) == 0;
                if (Instant.now().plusMillis(pause).isAfter(until)) {
                    break;
                }
                Thread.sleep(pause);
                if (jobFault != null && jobFault.isDone()) {
                    jobFault.get(); // a job that did not come back ends the campaign
                }
                if (kind.exclusive()) {
                    if (jobFault == null || jobFault.isDone()) {
                        jobFault = jobFaults.submit(() -> runJobFault(kind, rescale));
                    } else {
                        skipped++;
                    }
                } else if (!active.containsKey(kind)
                        && !(LINK.contains(kind)
                                && active.keySet().stream().anyMatch(LINK::contains))) {
                    startEnvironmentFault(kind, duration, delay);
                }
            }
            if (jobFault != null) {
                jobFault.get();
            }
        } finally {
            jobFaults.shutdown();
            timers.shutdownNow();
            List<FaultKind> still;
            synchronized (active) {
                still = new ArrayList<>(active.keySet());
            }
            for (FaultKind k : still) {
                end(k);
            }
        }
        synchronized (faults) {
            List<Fault> all = new ArrayList<>(faults);
            all.sort(java.util.Comparator.comparing(Fault::start));
            return all;
        }
    }

    /** How long a fault of {@code kind} lasts, milliseconds (0 for the instant job faults). */
    private long duration(FaultKind kind) {
        return switch (kind) {
            case JOB_KILL, SAVEPOINT_RESTORE -> 0;
            case BROKER_RESTART -> random.nextLong(5_000);
            case REGISTRY_DOWN -> 5_000 + random.nextLong(15_000);
            case NETWORK_STALL, NETWORK_CUT -> 2_000 + random.nextLong(6_000);
            case SLOW_ACKS -> 3_000 + random.nextLong(7_000);
            case CHECKPOINT_STORAGE -> 5_000 + random.nextLong(15_000);
            case STORAGE_DOWN -> 3_000 + random.nextLong(10_000);
        };
    }

    /** Job faults drawn while another one ran, and so not injected. */
    int skipped() {
        return skipped;
    }

    private Void runJobFault(FaultKind kind, boolean rescale) throws Exception {
        Instant start = Instant.now();
        String detail =
                kind == FaultKind.JOB_KILL ? target.killJob() : target.savepointAndRestore(rescale);
        Instant end = Instant.now();
        faults.add(new Fault(kind, start, end, detail));
        log.accept(kind + " " + detail + " (" + Duration.between(start, end).toMillis() + " ms)");
        return null;
    }

    private void startEnvironmentFault(FaultKind kind, long durationMillis, long delay)
            throws Exception {
        Instant start = Instant.now();
        String detail = "";
        switch (kind) {
            case BROKER_RESTART -> target.stopBroker();
            case REGISTRY_DOWN -> target.stopRegistry();
            case NETWORK_STALL -> target.link(FaultyLink.Mode.STALL, 0);
            case NETWORK_CUT -> target.link(FaultyLink.Mode.CUT, 0);
            case SLOW_ACKS -> {
                target.link(FaultyLink.Mode.SLOW, delay);
                detail = delay + " ms per response";
            }
            case CHECKPOINT_STORAGE -> detail = target.blockCheckpoints();
            case STORAGE_DOWN -> target.stopStorage();
            default -> throw new IllegalArgumentException(kind + " is a job fault");
        }
        active.put(kind, new Fault(kind, start, null, detail));
        log.accept(kind + " for " + durationMillis + " ms " + detail);
        timers.schedule(
                () -> {
                    try {
                        end(kind);
                    } catch (Exception e) {
                        log.accept("ending " + kind + " failed: " + e);
                    }
                },
                durationMillis,
                TimeUnit.MILLISECONDS);
    }

    /** Ends an environment fault and records it (idempotent). */
    private synchronized void end(FaultKind kind) throws Exception {
        Fault started = active.remove(kind);
        if (started == null) {
            return;
        }
        switch (kind) {
            case BROKER_RESTART -> target.startBroker();
            case REGISTRY_DOWN -> target.startRegistry();
            case NETWORK_STALL, NETWORK_CUT, SLOW_ACKS -> target.link(FaultyLink.Mode.PASS, 0);
            case CHECKPOINT_STORAGE -> target.unblockCheckpoints();
            case STORAGE_DOWN -> target.startStorage();
            default -> {}
        }
        faults.add(new Fault(kind, started.start(), Instant.now(), started.detail()));
        log.accept(kind + " ended");
    }
}
