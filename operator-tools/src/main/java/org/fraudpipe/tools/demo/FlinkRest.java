package org.fraudpipe.tools.demo;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import org.apache.flink.api.common.JobID;

/**
 * What the demo reads from the REST API of its MiniCluster (the endpoint the web UI uses), and the
 * production rehearsal from its session cluster's: whether the web UI is served, whether every task
 * of a job runs, the event-time watermark of the window operator, a job's accumulators and
 * checkpoint statistics. Every read is best effort: an endpoint that does not answer (starting,
 * shutting down) gives an empty result, never an exception.
 */
public final class FlinkRest {

    /** The window operator's name ({@code OperatorNames.FEATURE_WINDOW}) within its task's name. */
    static final String WINDOW_TASK = org.fraudpipe.job.topology.OperatorNames.FEATURE_WINDOW;

    private static final Duration TIMEOUT = Duration.ofSeconds(2);
    private static final ObjectMapper JSON = new ObjectMapper();

    private final URI base;
    private final HttpClient http;

    public FlinkRest(URI base) {
        this.base = base;
        this.http = HttpClient.newBuilder().connectTimeout(TIMEOUT).build();
    }

    public URI base() {
        return base;
    }

    /** Whether {@code /} serves Flink's web UI (flink-runtime-web on the classpath). */
    boolean servesWebUi() {
        return get("/").filter(r -> r.statusCode() == 200)
                .map(r -> r.body().toLowerCase(Locale.ROOT).contains("<html"))
                .orElse(false);
    }

    /** Whether the job is RUNNING with every task (vertex) RUNNING. */
    public boolean allTasksRunning(JobID job) {
        return json("/jobs/" + job)
                .map(
                        j -> {
                            if (!"RUNNING".equals(j.path("state").asText())) {
                                return false;
                            }
                            JsonNode vertices = j.path("vertices");
                            if (!vertices.isArray() || vertices.isEmpty()) {
                                return false;
                            }
                            for (JsonNode v : vertices) {
                                if (!"RUNNING".equals(v.path("status").asText())) {
                                    return false;
                                }
                            }
                            return true;
                        })
                .orElse(false);
    }

    /**
     * The window operator's current input watermark (the minimum over its subtasks, i.e. the event
     * time up to which every window decision is made); empty while unknown. {@link Long#MIN_VALUE}
     * means no watermark yet.
     */
    OptionalLong windowWatermark(JobID job) {
        Optional<String> vertex =
                json("/jobs/" + job)
                        .flatMap(
                                j -> {
                                    for (JsonNode v : j.path("vertices")) {
                                        if (v.path("name").asText().contains(WINDOW_TASK)) {
                                            return Optional.of(v.path("id").asText());
                                        }
                                    }
                                    return Optional.empty();
                                });
        if (vertex.isEmpty()) {
            return OptionalLong.empty();
        }
        Optional<JsonNode> marks =
                json("/jobs/" + job + "/vertices/" + vertex.get() + "/watermarks");
        if (marks.isEmpty() || !marks.get().isArray() || marks.get().isEmpty()) {
            return OptionalLong.empty();
        }
        long min = Long.MAX_VALUE;
        int found = 0;
        for (JsonNode m : marks.get()) {
            if (m.path("id").asText().endsWith(".currentInputWatermark")) {
                try {
                    min = Math.min(min, Long.parseLong(m.path("value").asText()));
                    found++;
                } catch (NumberFormatException notANumber) {
                    return OptionalLong.empty();
                }
            }
        }
        return found == 0 ? OptionalLong.empty() : OptionalLong.of(min);
    }

    /** The job's state ({@code RUNNING}, {@code RESTARTING}, {@code FINISHED}, ...), if known. */
    public Optional<String> jobState(JobID job) {
        return json("/jobs/" + job).map(j -> j.path("state").asText());
    }

    /**
     * The job's user accumulators by name, each value a {@link Long} where it is a number (the REST
     * API gives them as strings; counters and read positions are numbers), else its string. Empty
     * if the job does not answer.
     */
    public Map<String, Object> accumulators(JobID job) {
        Map<String, Object> out = new HashMap<>();
        json("/jobs/" + job + "/accumulators")
                .ifPresent(
                        j -> {
                            for (JsonNode a : j.path("user-task-accumulators")) {
                                String value = a.path("value").asText();
                                try {
                                    out.put(a.path("name").asText(), Long.parseLong(value));
                                } catch (NumberFormatException notANumber) {
                                    out.put(a.path("name").asText(), value);
                                }
                            }
                        });
        return out;
    }

    /** What a job's checkpoint statistics say: completed ones, what the job restored. */
    public record CheckpointStats(
            long completed,
            Optional<String> restoredPath,
            boolean restoredSavepoint,
            long restoredAt) {}

    /** The job's checkpoint statistics ({@code /jobs/ID/checkpoints}), if it answers. */
    public Optional<CheckpointStats> checkpoints(JobID job) {
        return json("/jobs/" + job + "/checkpoints")
                .map(
                        j -> {
                            JsonNode restored = j.path("latest").path("restored");
                            return new CheckpointStats(
                                    j.path("counts").path("completed").asLong(),
                                    text(restored.path("external_path")),
                                    restored.path("is_savepoint").asBoolean(),
                                    restored.path("restore_timestamp").asLong());
                        });
    }

    /** The raw answer of {@code path} (for checking what it shows), empty if none. */
    public Optional<String> body(String path) {
        return get(path).filter(r -> r.statusCode() == 200).map(HttpResponse::body);
    }

    private static Optional<String> text(JsonNode n) {
        return n.isMissingNode() || n.isNull() || n.asText().isEmpty()
                ? Optional.empty()
                : Optional.of(n.asText());
    }

    private Optional<JsonNode> json(String path) {
        return get(path)
                .filter(r -> r.statusCode() == 200)
                .flatMap(
                        r -> {
                            try {
                                return Optional.of(JSON.readTree(r.body()));
                            } catch (IOException e) {
                                return Optional.empty();
                            }
                        });
    }

    private Optional<HttpResponse<String>> get(String path) {
        try {
            return Optional.of(
                    http.send(
                            HttpRequest.newBuilder(base.resolve(path))
                                    .timeout(TIMEOUT)
                                    .GET()
                                    .build(),
                            HttpResponse.BodyHandlers.ofString()));
        } catch (IOException e) {
            return Optional.empty();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Optional.empty();
        }
    }
}
