package org.fraudpipe.bench.probe;

import java.io.IOException;
import java.io.Writer;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The one measuring point every system under benchmark carries: each input record the system takes
 * in calls {@link #record()}; the probe notes the wall clock and this JVM's CPU time at the first
 * record and at the {@link #expect expected} last one, samples the count once a second, and gives
 * the figures as a {@link Map} for the run's result file.
 *
 * <p>Where systems call it: in the Kafka record deserializer of both Flink systems (the source
 * thread; records then still cross at most the network buffers before the window operator) and
 * right after the source node in Kafka Streams (its stream thread then aggregates the record
 * synchronously). Sustained throughput is {@code (expected - 1) / (last - first)}: from the first
 * to the last input record, start-up and shutdown excluded. The once-a-second samples (records and
 * CPU time) also give the second half of the run alone, after the JIT and caches warmed up.
 *
 * <p>Live runs ({@link #liveFile}): the sampler also appends every sample, from {@link #expect} on,
 * to a file the harness reads while the run goes on ({@code wallMillis records cpuNanos} per line):
 * how far the system has read, and its CPU time over any interval the harness picks (the measured
 * part of a live-paced run). A run ends when the expected records were counted or when the harness
 * creates a stop file ({@link #awaitOrStop}).
 *
 * <p>One probe per JVM (static state): each system runs in a JVM of its own, and a Flink
 * MiniCluster runs its tasks in the JVM of its client. Thread-safe; the per-record cost is one
 * atomic increment.
 */
public final class RunProbe {

    /**
     * User ids starting with this are the harness's watermark-flush records, not traffic: their
     * first arrival is noted ({@link #marker()}), and they are left out of every comparison.
     */
    public static final String FLUSH_USER_PREFIX = "~flush-";

    private static final AtomicLong COUNT = new AtomicLong();
    private static final CountDownLatch DONE = new CountDownLatch(1);
    private static volatile long expected = Long.MAX_VALUE;
    private static volatile Point first;
    private static volatile Point last;
    private static volatile long markerWallMillis = -1;
    private static final List<long[]> SAMPLES = new ArrayList<>();
    private static Thread sampler;
    private static volatile Path liveFile;

    /** Wall clock, monotonic clock and process CPU time at one instant. */
    record Point(long wallMillis, long nanos, long cpuNanos) {
        static Point now() {
            return new Point(System.currentTimeMillis(), System.nanoTime(), RunProbe.cpuNanos());
        }
    }

    private RunProbe() {}

    /** How many records make the input complete; starts the once-a-second sampler. */
    public static synchronized void expect(long records) {
        if (records < 1) {
            throw new IllegalArgumentException("expected records must be positive: " + records);
        }
        expected = records;
        if (sampler == null) {
            sampler = new Thread(RunProbe::sample, "bench-probe-sampler");
            sampler.setDaemon(true);
            sampler.start();
        }
    }

    /**
     * Also write every once-a-second sample to {@code file} (appended, one {@code wallMillis
     * records cpuNanos} line each, flushed), including before the first record; call before {@link
     * #expect}.
     */
    public static void liveFile(Path file) {
        liveFile = file;
    }

    /**
     * Waits until the expected records were counted, {@code stopFile} exists (checked every 100 ms;
     * null: never) or {@code timeout} passed.
     *
     * @return whether the expected records were counted
     */
    public static boolean awaitOrStop(Duration timeout, Path stopFile) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            if (DONE.await(100, TimeUnit.MILLISECONDS)) {
                return true;
            }
            if (stopFile != null && Files.exists(stopFile)) {
                return DONE.getCount() == 0;
            }
        }
        return DONE.getCount() == 0;
    }

    /** Counts one input record. */
    public static void record() {
        long n = COUNT.incrementAndGet();
        if (n == 1) {
            first = Point.now();
        }
        if (n == expected) {
            last = Point.now();
            DONE.countDown();
        }
    }

    /** Notes the wall clock of the first flush record seen (idempotent, cheap after the first). */
    public static void marker() {
        if (markerWallMillis < 0) {
            markerWallMillis = System.currentTimeMillis();
        }
    }

    /** Whether {@code userId} is one of the harness's flush records. */
    public static boolean isFlushUser(String userId) {
        return userId != null && userId.startsWith(FLUSH_USER_PREFIX);
    }

    /** Records counted so far. */
    public static long count() {
        return COUNT.get();
    }

    /** Waits until the expected number of records was counted; false on timeout. */
    public static boolean await(Duration timeout) throws InterruptedException {
        return DONE.await(timeout.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** Processes of the system besides this JVM whose CPU time counts as the system's. */
    private static final List<ProcessHandle> ALSO_COUNTED =
            new java.util.concurrent.CopyOnWriteArrayList<>();

    /**
     * Counts {@code process}'s CPU time as the system's from now on (a system of more than one JVM:
     * the decision job's own JVM beside the window job's). Call before the first record.
     */
    public static void alsoCount(ProcessHandle process) {
        ALSO_COUNTED.add(process);
    }

    /**
     * The system's CPU time so far, nanoseconds (all threads, user + system): this JVM's, plus that
     * of every process {@link #alsoCount counted with it} (while it runs: read it before it exits).
     */
    public static long cpuNanos() {
        java.lang.management.OperatingSystemMXBean os =
                ManagementFactory.getOperatingSystemMXBean();
        if (!(os instanceof com.sun.management.OperatingSystemMXBean sun)) {
            return -1;
        }
        long total = sun.getProcessCpuTime();
        for (ProcessHandle p : ALSO_COUNTED) {
            total += p.info().totalCpuDuration().map(java.time.Duration::toNanos).orElse(0L);
        }
        return total;
    }

    /** Total GC time of this JVM so far, milliseconds. */
    public static long gcMillis() {
        long total = 0;
        for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
            total += Math.max(0, gc.getCollectionTime());
        }
        return total;
    }

    /**
     * The measurement: records, first/last wall clock, elapsed seconds, events per second, CPU
     * seconds between first and last record and events per CPU-second, the flush marker, the JVM's
     * total CPU and GC time so far, and the per-second rate samples.
     */
    public static Map<String, Object> result() {
        Map<String, Object> r = new LinkedHashMap<>();
        Point f = first;
        Point l = last;
        r.put("records", COUNT.get());
        r.put("expectedRecords", expected == Long.MAX_VALUE ? null : expected);
        r.put("complete", l != null);
        if (f != null) {
            r.put("firstRecordWallMillis", f.wallMillis());
        }
        if (f != null && l != null) {
            double seconds = (l.nanos() - f.nanos()) / 1e9;
            double cpu = (l.cpuNanos() - f.cpuNanos()) / 1e9;
            long intervals = expected - 1;
            r.put("lastRecordWallMillis", l.wallMillis());
            r.put("elapsedSeconds", seconds);
            r.put("eventsPerSecond", seconds > 0 ? intervals / seconds : null);
            r.put("cpuSeconds", cpu);
            r.put("eventsPerCpuSecond", cpu > 0 ? intervals / cpu : null);
            r.put("cpuCoresBusy", seconds > 0 ? cpu / seconds : null);
        }
        r.put("flushMarkerWallMillis", markerWallMillis < 0 ? null : markerWallMillis);
        r.put("jvmCpuSecondsTotal", cpuNanos() / 1e9);
        r.put("jvmGcSecondsTotal", gcMillis() / 1e3);
        r.put("jvmUptimeSeconds", ManagementFactory.getRuntimeMXBean().getUptime() / 1e3);
        synchronized (SAMPLES) {
            List<Long> perSecond = new ArrayList<>();
            List<Double> cpuPerSecond = new ArrayList<>();
            for (int i = 1; i < SAMPLES.size(); i++) {
                perSecond.add(SAMPLES.get(i)[1] - SAMPLES.get(i - 1)[1]);
                cpuPerSecond.add((SAMPLES.get(i)[2] - SAMPLES.get(i - 1)[2]) / 1e9);
            }
            r.put("recordsPerSecondSamples", perSecond);
            r.put("cpuSecondsPerSecondSamples", cpuPerSecond);
            // The second half of the run (whole seconds): after warm-up (JIT, caches, state).
            int from = SAMPLES.size() / 2;
            int to = SAMPLES.size() - 2; // the last sample spans the end of input
            if (to - from >= 2) {
                long[] a = SAMPLES.get(from);
                long[] b = SAMPLES.get(to);
                double seconds = (b[0] - a[0]) / 1e3;
                double cpu = (b[2] - a[2]) / 1e9;
                r.put("secondHalfEventsPerSecond", (b[1] - a[1]) / seconds);
                r.put("secondHalfEventsPerCpuSecond", cpu > 0 ? (b[1] - a[1]) / cpu : null);
            }
        }
        return r;
    }

    private static void sample() {
        long next = System.nanoTime();
        while (true) {
            next += 1_000_000_000L;
            long sleep = next - System.nanoTime();
            if (sleep > 0) {
                try {
                    Thread.sleep(sleep / 1_000_000, (int) (sleep % 1_000_000));
                } catch (InterruptedException e) {
                    return;
                }
            }
            long n = COUNT.get();
            writeLive(System.currentTimeMillis(), n, cpuNanos());
            if (n == 0) {
                continue; // not started: no sample before the first record
            }
            synchronized (SAMPLES) {
                SAMPLES.add(new long[] {System.currentTimeMillis(), n, cpuNanos()});
            }
            if (last != null && SAMPLES.size() > 1 && liveFile == null) {
                return;
            }
        }
    }

    private static void writeLive(long wallMillis, long records, long cpu) {
        Path file = liveFile;
        if (file == null) {
            return;
        }
        try (Writer w =
                Files.newBufferedWriter(
                        file,
                        StandardCharsets.UTF_8,
                        StandardOpenOption.CREATE,
                        StandardOpenOption.APPEND)) {
            w.write(wallMillis + " " + records + " " + cpu + "\n");
        } catch (IOException e) {
            // best effort: the harness then sees no progress and says so
        }
    }

    /**
     * The samples of a live file: {@code {wallMillis, records, cpuNanos}} each, in order; a torn
     * last line (being written) is skipped.
     */
    public static List<long[]> readLiveFile(Path file) throws IOException {
        List<long[]> samples = new ArrayList<>();
        if (!Files.exists(file)) {
            return samples;
        }
        String text = Files.readString(file, StandardCharsets.UTF_8);
        // Only whole lines: the last one may be being written.
        text = text.substring(0, text.lastIndexOf('\n') + 1);
        for (String line : text.split("\n")) {
            String[] f = line.trim().split(" ");
            if (f.length != 3) {
                continue;
            }
            try {
                samples.add(
                        new long[] {
                            Long.parseLong(f[0]), Long.parseLong(f[1]), Long.parseLong(f[2])
                        });
            } catch (NumberFormatException torn) {
                // the line being written
            }
        }
        return samples;
    }
}
