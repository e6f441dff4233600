package org.fraudpipe.tools.demo;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Locale;
import java.util.Optional;
import java.util.OptionalLong;
import org.apache.flink.api.common.JobID;

/**
 * What the demo reads from the REST API of its MiniCluster (the endpoint the web UI uses): whether
 * the web UI is served, whether every task of the job runs, and the event-time watermark of the
 * window operator. Every read is best effort: an endpoint that does not answer (starting, shutting
 * down) gives an empty result, never an exception.
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
