package org.fraudpipe.job.scoring;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.reflect.Field;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.fraudpipe.scoring.OnnxScorer;
import org.junit.jupiter.api.Test;

/**
 * Once the scorer has its ONNX Runtime environment, ONNX Runtime's own shutdown hook (which
 * releases the environment) is gone: run concurrently with a job still scoring, on Ctrl-C or
 * SIGTERM, it crashed the JVM in libonnxruntime (the demo's SIGTERM, exit code 134). The JVM here
 * has the launcher's add-opens, as {@code ./fraud} does.
 */
class OnnxRuntimeShutdownHookTest {

    @Test
    void onnxRuntimeDoesNotReleaseItsEnvironmentAtShutdown() throws Exception {
        try (OnnxScorer scorer = OnnxScorer.loadDefault()) {
            assertThat(scorer).isNotNull();
        }
        assertThat(hookRunnables())
                .as("shutdown hooks")
                .noneMatch(r -> r.equals("ai.onnxruntime.OrtEnvironment$OrtEnvCloser"));
    }

    private static List<String> hookRunnables() throws Exception {
        Class<?> hooksClass = Class.forName("java.lang.ApplicationShutdownHooks");
        Field hooksField = hooksClass.getDeclaredField("hooks");
        hooksField.setAccessible(true);
        Field target = Thread.class.getDeclaredField("target");
        target.setAccessible(true);
        List<String> runnables = new ArrayList<>();
        synchronized (hooksClass) {
            for (Object hook : ((Map<?, ?>) hooksField.get(null)).keySet()) {
                Object r = target.get(hook);
                runnables.add(r == null ? hook.getClass().getName() : r.getClass().getName());
            }
        }
        return runnables;
    }
}
