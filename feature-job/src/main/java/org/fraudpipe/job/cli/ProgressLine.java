package org.fraudpipe.job.cli;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * The progress of a long command on a terminal: one line on standard error, redrawn in place about
 * once a second, with the stage, the records read so far, the rate, the elapsed time and, when the
 * total is known, the time left. Erased when the command is done, so its summary line (on standard
 * output) is exactly what it prints without a terminal.
 *
 * <p><b>When.</b> Only when standard error is a terminal, which Java cannot ask ({@code
 * System.console()} is about standard input and output): the launcher tests {@code [ -t 2 ]} and
 * passes {@code -D}{@value #PROPERTY}{@code =}{@value #TERMINAL}. Without it (a scheduler's log, a
 * pipe, a test, {@code flink run}) {@link #forCommand} gives a line that prints nothing.
 *
 * <p><b>How.</b> A daemon thread reads the counters given with the {@link #stage} (e.g. a Flink
 * job's accumulators, {@link JobCounters}) and redraws: a carriage return, the line, spaces over
 * what the previous one left; no terminal escape sequence, so it also works on a dumb terminal.
 * Lines are cut to the terminal's width (the launcher passes {@value #COLUMNS_PROPERTY}; 80 if
 * not), since a wrapped line cannot be redrawn in place.
 */
public final class ProgressLine implements AutoCloseable {

    /**
     * System property the launcher sets to {@value #TERMINAL} when standard error is a terminal.
     */
    public static final String PROPERTY = "fraud.progress";

    /** The value of {@link #PROPERTY} that turns progress on. */
    public static final String TERMINAL = "tty";

    /** System property: the terminal's width in columns. */
    public static final String COLUMNS_PROPERTY = "fraud.progress.columns";

    /** A count or total that is not known (yet). */
    public static final long UNKNOWN = -1;

    private static final int DEFAULT_COLUMNS = 80;
    private static final long TICK_MILLIS = 1000;
    private static final long RATE_WINDOW_NANOS = 10_000_000_000L;

    private final String command;
    private final PrintStream err;
    private final int columns;
    private final long began;
    private final Rate rate = new Rate();

    // Guarded by `this`.
    private String stage = "";
    private LongSupplier records = () -> UNKNOWN;
    private LongSupplier total = () -> UNKNOWN;
    private int drawn;
    private boolean closed;
    private Thread ticker;

    private ProgressLine(String command, PrintStream err, int columns, long began) {
        this.command = command;
        this.err = err;
        this.columns = columns;
        this.began = began;
    }

    /**
     * The progress line of {@code command} (e.g. {@code parity}): drawn on standard error if the
     * launcher found it a terminal, else one that prints nothing.
     */
    public static ProgressLine forCommand(String command) {
        return onTerminal(System.getProperty(PROPERTY))
                ? new ProgressLine(command, System.err, columns(), System.nanoTime())
                : off();
    }

    /** Whether {@link #PROPERTY}'s value (null if unset) says standard error is a terminal. */
    public static boolean onTerminal(String propertyValue) {
        return TERMINAL.equals(propertyValue);
    }

    /** A progress line that prints nothing. */
    public static ProgressLine off() {
        ProgressLine off = new ProgressLine("", null, DEFAULT_COLUMNS, 0);
        off.closed = true;
        return off;
    }

    /** A line drawn on {@code err} whatever the terminal (tests). */
    static ProgressLine drawingOn(String command, PrintStream err, int columns) {
        return new ProgressLine(command, err, columns, System.nanoTime());
    }

    private static int columns() {
        try {
            int c = Integer.parseInt(System.getProperty(COLUMNS_PROPERTY, "").strip());
            return c >= 20 ? c : DEFAULT_COLUMNS;
        } catch (NumberFormatException e) {
            return DEFAULT_COLUMNS;
        }
    }

    /** Whether anything is drawn: false for {@link #off()} and once closed. */
    public synchronized boolean isOn() {
        return !closed;
    }

    /** A stage without a count (e.g. starting, writing the report). */
    public void stage(String stage) {
        stage(stage, () -> UNKNOWN, () -> UNKNOWN);
    }

    /**
     * A stage with the records read so far and their total, each read at every redraw ({@link
     * #UNKNOWN} while not known). Draws at once.
     */
    public void stage(String stage, LongSupplier records, LongSupplier total) {
        synchronized (this) {
            if (closed) {
                return;
            }
            this.stage = stage;
            this.records = records;
            this.total = total;
            rate.reset();
            if (ticker == null) {
                ticker = new Thread(this::tick, "fraud-progress");
                ticker.setDaemon(true);
                ticker.start();
            }
        }
        draw();
    }

    private void tick() {
        while (true) {
            try {
                Thread.sleep(TICK_MILLIS);
            } catch (InterruptedException e) {
                return;
            }
            synchronized (this) {
                if (closed) {
                    return;
                }
            }
            draw();
        }
    }

    /** Reads the counters and redraws the line (nothing once closed). */
    void draw() {
        LongSupplier r;
        LongSupplier t;
        String s;
        synchronized (this) {
            if (closed) {
                return;
            }
            r = records;
            t = total;
            s = stage;
        }
        // Outside the lock: a counter may take a moment (a Flink job's accumulators).
        long n = read(r);
        long of = read(t);
        long now = System.nanoTime();
        synchronized (this) {
            if (closed || !s.equals(stage)) {
                return;
            }
            double perSecond = n == UNKNOWN ? UNKNOWN : rate.add(now, n);
            String line =
                    fit(
                            format(command, s, n, of, perSecond, Duration.ofNanos(now - began)),
                            columns - 1);
            StringBuilder b = new StringBuilder("\r").append(line);
            for (int i = line.length(); i < drawn; i++) {
                b.append(' ');
            }
            err.print(b);
            err.flush();
            drawn = line.length();
        }
    }

    private static long read(LongSupplier counter) {
        try {
            return counter.getAsLong();
        } catch (RuntimeException e) {
            return UNKNOWN;
        }
    }

    /** Stops drawing and erases the line, so that what follows starts on a clean line. */
    @Override
    public void close() {
        Thread t;
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            t = ticker;
            if (drawn > 0) {
                err.print("\r" + " ".repeat(drawn) + "\r");
                err.flush();
            }
        }
        if (t != null) {
            t.interrupt();
        }
    }

    /**
     * One progress line, e.g. {@code parity: reading the archive | 523,417 of 1,000,000 records
     * (52%) | 12,345/s | 0:42 | about 0:39 left}.
     *
     * @param records records read so far, or {@link #UNKNOWN} for a stage without a count
     * @param total their total, or {@link #UNKNOWN}
     * @param rate records per second, or negative if not known (yet)
     */
    static String format(
            String command, String stage, long records, long total, double rate, Duration elapsed) {
        StringBuilder b = new StringBuilder(command).append(": ").append(stage);
        if (records != UNKNOWN) {
            b.append(" | ").append(number(records));
            boolean ofTotal = total > 0 && records <= total;
            if (ofTotal) {
                b.append(" of ")
                        .append(number(total))
                        .append(" records (")
                        .append(records * 100 / total)
                        .append("%)");
            } else {
                b.append(" records");
            }
            if (rate > 0) {
                b.append(" | ").append(number(Math.round(rate))).append("/s");
            }
            b.append(" | ").append(clock(elapsed));
            if (ofTotal && rate > 0 && records < total) {
                long left = Math.round((total - records) / rate);
                b.append(" | about ").append(clock(Duration.ofSeconds(left))).append(" left");
            }
        } else {
            b.append(" | ").append(clock(elapsed));
        }
        return b.toString();
    }

    /** {@code line}, cut to {@code width} characters (with an ellipsis) if longer. */
    static String fit(String line, int width) {
        return line.length() <= width ? line : line.substring(0, Math.max(0, width - 3)) + "...";
    }

    /** {@code 1,234,567}. */
    static String number(long n) {
        return String.format(Locale.ROOT, "%,d", n);
    }

    /** {@code m:ss}, or {@code h:mm:ss} from an hour on. */
    static String clock(Duration d) {
        long s = Math.max(0, d.toSeconds());
        return s >= 3600
                ? String.format(Locale.ROOT, "%d:%02d:%02d", s / 3600, (s % 3600) / 60, s % 60)
                : String.format(Locale.ROOT, "%d:%02d", s / 60, s % 60);
    }

    /**
     * Records per second over the last ten seconds or so: since the latest sample at least that old
     * (since the first sample until then).
     */
    static final class Rate {
        private final ArrayDeque<long[]> samples = new ArrayDeque<>();

        synchronized void reset() {
            samples.clear();
        }

        /** Adds a sample; returns the rate, or {@link ProgressLine#UNKNOWN} with one sample. */
        synchronized double add(long nanoTime, long count) {
            samples.addLast(new long[] {nanoTime, count});
            while (samples.size() > 2) {
                var it = samples.iterator();
                it.next();
                if (nanoTime - it.next()[0] >= RATE_WINDOW_NANOS) {
                    samples.removeFirst();
                } else {
                    break;
                }
            }
            long[] first = samples.peekFirst();
            long dt = nanoTime - first[0];
            return dt <= 0 ? UNKNOWN : (count - first[1]) * 1e9 / dt;
        }
    }

    /**
     * A total counted in the background (e.g. the lines of a large file), {@link #UNKNOWN} until
     * known or if the count fails: the line shows no time left meanwhile, and the command does not
     * wait for it.
     */
    public static LongSupplier countInBackground(String what, Callable<Long> count) {
        AtomicLong total = new AtomicLong(UNKNOWN);
        Thread t =
                new Thread(
                        () -> {
                            try {
                                total.set(count.call());
                            } catch (Exception e) {
                                // no total: no time left shown
                            }
                        },
                        "fraud-progress-count " + what);
        t.setDaemon(true);
        t.start();
        return total::get;
    }

    /** The lines of {@code file} (a last line without a line break counts). */
    public static long lines(Path file) throws IOException {
        long lines = 0;
        int last = '\n';
        byte[] buffer = new byte[1 << 16];
        try (InputStream in = Files.newInputStream(file)) {
            int n;
            while ((n = in.read(buffer)) > 0) {
                for (int i = 0; i < n; i++) {
                    if (buffer[i] == '\n') {
                        lines++;
                    }
                }
                last = buffer[n - 1];
            }
        }
        return last == '\n' ? lines : lines + 1;
    }
}
