package org.fraudpipe.bench.ours;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.flink.api.common.JobID;

/**
 * When a benchmark run's job checkpointed, from its local cluster's REST API ({@code
 * /jobs/:id/checkpoints}, what the web UI's checkpoint tab shows): the live suite marks the seconds
 * that held a checkpoint in its per-second latency series. One per runner JVM, on a free port.
 */
final class RestCheckpoints {

    /** Checkpoints kept in the REST history: every one of a benchmark run. */
    private static final int HISTORY = 10_000;

    private final int port;

    private RestCheckpoints(int port) {
        this.port = port;
    }

    /** On a port free now. */
    static RestCheckpoints onFreePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return new RestCheckpoints(s.getLocalPort());
        }
    }

    /** The Flink settings for the local cluster's REST endpoint and its checkpoint history. */
    Map<String, String> settings() {
        Map<String, String> m = new LinkedHashMap<>();
        m.put("rest.address", "localhost");
        m.put("rest.bind-address", "localhost");
        m.put("rest.port", Integer.toString(port));
        m.put("rest.bind-port", Integer.toString(port));
        m.put("web.checkpoints.history", Integer.toString(HISTORY));
        return m;
    }

    /**
     * Every checkpoint of {@code job} in the history, oldest first: {@code [id, triggerMillis,
     * endToEndMillis, status]}; empty (with the reason in the log) if the endpoint does not answer.
     */
    List<List<Object>> history(JobID job) {
        List<List<Object>> out = new ArrayList<>();
        try {
            HttpResponse<String> r =
                    HttpClient.newHttpClient()
                            .send(
                                    HttpRequest.newBuilder(
                                                    URI.create(
                                                            "http://localhost:"
                                                                    + port
                                                                    + "/jobs/"
                                                                    + job
                                                                    + "/checkpoints"))
                                            .timeout(Duration.ofSeconds(10))
                                            .build(),
                                    HttpResponse.BodyHandlers.ofString());
            JsonNode history = new ObjectMapper().readTree(r.body()).path("history");
            for (JsonNode c : history) {
                out.add(
                        List.of(
                                c.path("id").asLong(),
                                c.path("trigger_timestamp").asLong(),
                                c.path("end_to_end_duration").asLong(),
                                c.path("status").asText()));
            }
        } catch (IOException e) {
            System.err.println("checkpoint history of " + job + " not read: " + e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        out.sort((a, b) -> Long.compare((Long) a.get(1), (Long) b.get(1)));
        return out;
    }
}
