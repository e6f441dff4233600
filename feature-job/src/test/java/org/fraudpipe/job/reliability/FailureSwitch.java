package org.fraudpipe.job.reliability;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A one-shot failure that a test arms and the job trips, shared between the test thread and the
 * job's tasks through a static registry (a MiniCluster runs the tasks in the test's JVM, with the
 * test's classes). Named, so each test has its own; operators hold only the name (serializable).
 *
 * <p>Life cycle: {@link #arm()} by the test; the first task that {@link #trip()}s it after that
 * wins (exactly one failure, even with parallelism 2 and after the restart it causes); the task
 * then reports {@link #awaitTripped} and waits in {@link #awaitRelease} until the test lets it
 * fail. While it waits, its subtask cannot take part in a checkpoint, so nothing the job wrote
 * since the last completed checkpoint can be committed: the test can look at the open transactions
 * first.
 */
public final class FailureSwitch {

    private static final Map<String, FailureSwitch> SWITCHES = new ConcurrentHashMap<>();

    private final AtomicBoolean armed = new AtomicBoolean();
    private final AtomicBoolean tripped = new AtomicBoolean();
    private final CountDownLatch trippedLatch = new CountDownLatch(1);
    private final CountDownLatch release = new CountDownLatch(1);

    private FailureSwitch() {}

    /** A new switch registered under {@code name} (replacing an older one of that name). */
    public static FailureSwitch create(String name) {
        FailureSwitch s = new FailureSwitch();
        SWITCHES.put(name, s);
        return s;
    }

    static FailureSwitch named(String name) {
        FailureSwitch s = SWITCHES.get(name);
        if (s == null) {
            throw new IllegalStateException("no failure switch " + name);
        }
        return s;
    }

    public void arm() {
        armed.set(true);
    }

    /** Whether this caller is the one that fails (true once, for one caller). */
    boolean trip() {
        if (armed.get() && tripped.compareAndSet(false, true)) {
            trippedLatch.countDown();
            return true;
        }
        return false;
    }

    /** Waits until a task tripped the switch. */
    public void awaitTripped(Duration timeout) throws InterruptedException {
        if (!trippedLatch.await(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
            throw new AssertionError("the job did not trip the failure within " + timeout);
        }
    }

    /** Lets the tripped task fail. */
    public void release() {
        release.countDown();
    }

    /**
     * In the tripped task: waits for the test's release (bounded, so a broken test cannot hang).
     */
    void awaitRelease() throws InterruptedException {
        release.await(2, TimeUnit.MINUTES);
    }
}
