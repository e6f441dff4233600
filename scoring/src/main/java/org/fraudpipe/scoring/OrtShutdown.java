package org.fraudpipe.scoring;

import java.lang.reflect.Field;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Keeps ONNX Runtime's process-wide environment until the process exits.
 *
 * <p>ONNX Runtime's Java API registers a shutdown hook ({@code OrtEnvironment$OrtEnvCloser}) that
 * releases the native environment. Shutdown hooks run concurrently with each other and with every
 * thread still running, so on Ctrl-C or SIGTERM of a JVM that runs the job (the demo, {@code
 * ./fraud job}, a replay) the hook can release the environment while a task thread is inside {@code
 * OrtSession.run}: the JVM dies with SIGSEGV in libonnxruntime (exit code 134, an {@code hs_err}
 * file), and the other hooks (the demo's: cancel the job, stop Kafka, say so) are cut off. Seen in
 * {@code DemoIT}'s SIGTERM test. The environment is process-wide and needed until the end anyway,
 * and the operating system reclaims its memory at exit: the hook is removed.
 *
 * <p>Best effort: it needs {@code --add-opens java.base/java.lang=ALL-UNNAMED} (in {@code
 * .mvn/flink-jvm.options}, which {@code ./fraud} and the tests use; Flink passes it on Java 17
 * too); without it ONNX Runtime's hook stays.
 */
final class OrtShutdown {

    static final String CLOSER = "ai.onnxruntime.OrtEnvironment$OrtEnvCloser";

    private OrtShutdown() {}

    /** Removes ONNX Runtime's shutdown hooks; returns how many were removed. */
    static int keepEnvironmentUntilExit() {
        List<Thread> closers;
        try {
            closers = closerHooks();
        } catch (ReflectiveOperationException | RuntimeException notAccessible) {
            return 0;
        }
        int removed = 0;
        for (Thread hook : closers) {
            try {
                if (Runtime.getRuntime().removeShutdownHook(hook)) {
                    removed++;
                }
            } catch (IllegalStateException shuttingDown) {
                return removed;
            }
        }
        return removed;
    }

    /** The registered shutdown hooks that run ONNX Runtime's environment closer. */
    static List<Thread> closerHooks() throws ReflectiveOperationException {
        Class<?> hooksClass = Class.forName("java.lang.ApplicationShutdownHooks");
        Field hooksField = hooksClass.getDeclaredField("hooks");
        hooksField.setAccessible(true);
        Field target = Thread.class.getDeclaredField("target");
        target.setAccessible(true);
        List<Thread> closers = new ArrayList<>();
        synchronized (hooksClass) {
            Map<?, ?> hooks = (Map<?, ?>) hooksField.get(null);
            if (hooks == null) {
                return closers; // the JVM is shutting down
            }
            for (Object hook : hooks.keySet()) {
                Object runnable = target.get(hook);
                if (runnable != null && runnable.getClass().getName().equals(CLOSER)) {
                    closers.add((Thread) hook);
                }
            }
        }
        return closers;
    }
}
