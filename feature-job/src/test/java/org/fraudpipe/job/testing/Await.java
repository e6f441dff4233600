package org.fraudpipe.job.testing;

import java.time.Duration;
import java.util.concurrent.Callable;

/**
 * Waiting on a condition with a timeout, never on time alone: the condition is checked every 100
 * ms, and the wait fails with the condition's description when the timeout passes. Timeouts are
 * generous (a loaded CI machine) and never part of what a test asserts.
 */
public final class Await {

    private static final long POLL_MILLIS = 100;

    private Await() {}

    /** Waits until {@code condition} holds; fails with {@code what} after {@code timeout}. */
    public static void until(String what, Duration timeout, Callable<Boolean> condition) {
        long deadline = System.nanoTime() + timeout.toNanos();
        Exception last = null;
        while (true) {
            try {
                if (Boolean.TRUE.equals(condition.call())) {
                    return;
                }
                last = null;
            } catch (Exception e) {
                last = e;
            }
            if (System.nanoTime() > deadline) {
                throw new AssertionError(
                        "timed out after " + timeout.toSeconds() + " s waiting for: " + what, last);
            }
            try {
                Thread.sleep(POLL_MILLIS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError("interrupted while waiting for: " + what, e);
            }
        }
    }
}
