package org.fraudpipe.local;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.function.BooleanSupplier;

/**
 * What the local runtime's background JVMs (broker, schema registry, object store) share: started
 * with their output appended to a log file and no input, then awaited until they answer, with the
 * end of that log in the message when they exit or do not answer in time.
 */
final class BackgroundJvm {

    private static final int LOG_LINES = 30;

    private BackgroundJvm() {}

    /** Starts {@code command}, its output and errors appended to {@code logFile}. */
    static Process start(List<String> command, Path logFile, String what) {
        try {
            return new ProcessBuilder(command)
                    .redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(logFile.toFile()))
                    .redirectInput(ProcessBuilder.Redirect.from(LocalKafkaBroker.nullFile()))
                    .start();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start " + what + " " + command.get(0), e);
        }
    }

    /**
     * Polls {@code answers} every {@code pollMillis} until it is true.
     *
     * @throws IllegalStateException when the process exits first or {@code timeout} passes, naming
     *     {@code what}, {@code where} it was asked, and the end of {@code logFile}
     */
    static void awaitAnswer(
            ProcessHandle process,
            BooleanSupplier answers,
            String what,
            String where,
            Duration timeout,
            Path logFile,
            long pollMillis) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            if (!process.isAlive()) {
                throw new IllegalStateException(
                        what
                                + " exited during start-up; end of "
                                + logFile
                                + ":\n"
                                + LocalKafkaBroker.tail(logFile, LOG_LINES));
            }
            if (answers.getAsBoolean()) {
                return;
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException(
                        what
                                + " did not answer on "
                                + where
                                + " within "
                                + timeout.toSeconds()
                                + " s; end of "
                                + logFile
                                + ":\n"
                                + LocalKafkaBroker.tail(logFile, LOG_LINES));
            }
            try {
                Thread.sleep(pollMillis);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while waiting for " + what, e);
            }
        }
    }
}
