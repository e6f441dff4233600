package org.fraudpipe.job.scoring.release;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.MetricGroup;
import org.fraudpipe.schemas.avro.ModelKind;
import org.fraudpipe.schemas.avro.ModelRole;
import org.fraudpipe.scoring.ModelLoadException;
import org.fraudpipe.scoring.ModelMetadata;
import org.fraudpipe.scoring.OnnxScorer;
import org.fraudpipe.scoring.ReleaseCheck;
import org.fraudpipe.scoring.release.ModelRegistry;
import org.fraudpipe.scoring.release.ServingModels;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The models of one scoring subtask for one kind of score: the model the job was started with and
 * every release the registry assigns, each record scored by the release that holds the champion
 * role at the record's <em>coordinate</em> (a transaction's Kafka record timestamp, a pane's window
 * start) and, if a challenger is assigned there, by the challenger too (shadow scoring).
 *
 * <p>Invariants:
 *
 * <ul>
 *   <li>Which release scores a record is a function of its coordinate and the registry's records
 *       ({@link ServingModels}): the live run, a failover's replay, a restore and the parity check
 *       pick the same one, whatever the batch, the subtask or the wall clock.
 *   <li>A record is scored only with a view that covers its coordinate; a batch waits for one (the
 *       follower refreshes every second and covers about 8 s ahead of the wall clock, so live this
 *       only waits when the registry cannot be read), up to the hold timeout, then the task fails
 *       naming the topic.
 *   <li>A release serves only after its byte-determined check passed on this subtask ({@link
 *       ReleaseCheck#checkContent}); a refused one is logged and counted once, and the release
 *       before it keeps serving.
 * </ul>
 *
 * <p>Metrics, in the scoring operator's group: {@value #SWITCHES} (the champion of the newest
 * coordinate scored changed), {@value #REFUSED}, {@value #REGISTRY_WAITS} (batches that waited for
 * a view), and per release ({@code release} and {@code role} variables) {@value #SCORED}.
 *
 * <p>Not thread-safe: the task thread only.
 */
public final class ServingScorer<R> implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(ServingScorer.class);

    public static final String SWITCHES = "fraudModelSwitches";
    public static final String REFUSED = "fraudModelReleasesRefused";
    public static final String REGISTRY_WAITS = "fraudModelRegistryWaits";
    public static final String SCORED = "fraudScoredByRelease";

    /**
     * One batch's scores. The challenger's arrays hold {@code NaN} and null for records that had no
     * challenger.
     */
    public static final class Scored {
        public final double[] scores;
        public final ModelMetadata[] models;
        public final double[] challengerScores;
        public final ModelMetadata[] challengers;

        Scored(int n) {
            scores = new double[n];
            models = new ModelMetadata[n];
            challengerScores = new double[n];
            challengers = new ModelMetadata[n];
            Arrays.fill(challengerScores, Double.NaN);
        }
    }

    private final ModelKind kind;
    private final OnnxScorer<R> startup;
    private final RegistryFeed feed;
    private final Duration holdTimeout;
    private final MetricGroup metrics;
    private final String subtask;
    private final Function<ModelRegistry.Release, ReleaseCheck.Verdict> verdicts =
            ServingModels.memoizedChecks();
    private final Map<String, OnnxScorer<R>> loaded = new HashMap<>();
    private final Set<String> reported = new HashSet<>();
    private final Map<String, Counter> scoredBy = new HashMap<>();
    private final Counter switches;
    private final Counter refused;
    private final Counter waits;

    private RegistryView view;
    private ServingModels serving;
    private long newestCoordinate = Long.MIN_VALUE;
    private String newestChampion;

    /**
     * @param startup the model the job was started with: it serves where no release is champion
     * @param feed the subtask's registry, or null: the start-up model scores everything
     * @param subtask how log lines name this subtask
     */
    public ServingScorer(
            ModelKind kind,
            OnnxScorer<R> startup,
            RegistryFeed feed,
            Duration holdTimeout,
            MetricGroup metrics,
            String subtask) {
        this.kind = kind;
        this.startup = startup;
        this.feed = feed;
        this.holdTimeout = holdTimeout;
        this.metrics = metrics;
        this.subtask = subtask;
        this.switches = metrics.counter(SWITCHES);
        this.refused = metrics.counter(REFUSED);
        this.waits = metrics.counter(REGISTRY_WAITS);
    }

    /** The model the job was started with. */
    public ModelMetadata startupModel() {
        return startup.metadata();
    }

    /**
     * Waits for the registry's first view (when the task opens, so that the first record does not
     * wait for it).
     */
    public void awaitFirstView(long coordinate) {
        if (feed != null) {
            useView(await(coordinate));
        }
    }

    /**
     * Scores {@code rows}: row {@code i} by the champion at {@code coordinates[i]} and, where one
     * is assigned, by the challenger.
     */
    public Scored score(List<? extends R> rows, long[] coordinates) {
        int n = rows.size();
        Scored out = new Scored(n);
        if (feed == null) {
            double[] p = startup.score(rows);
            System.arraycopy(p, 0, out.scores, 0, n);
            Arrays.fill(out.models, startup.metadata());
            count(startup.metadata().id(), ModelRole.CHAMPION, n);
            return out;
        }
        long oldest = Long.MAX_VALUE;
        long newest = Long.MIN_VALUE;
        for (int i = 0; i < n; i++) {
            oldest = Math.min(oldest, coordinates[i]);
            newest = Math.max(newest, coordinates[i]);
        }
        refreshView(newest);
        ModelRegistry.Release[] champions = new ModelRegistry.Release[n];
        ModelRegistry.Release[] challengers = new ModelRegistry.Release[n];
        boolean anyChallenger = false;
        if (serving.sameBetween(oldest, newest)) {
            // The common case: no switch inside the batch, one look-up for all of it.
            ModelRegistry.Release champion = serving.champion(newest).orElse(null);
            ModelRegistry.Release challenger = serving.challenger(newest).orElse(null);
            Arrays.fill(champions, champion);
            Arrays.fill(challengers, challenger);
            anyChallenger = challenger != null;
        } else {
            for (int i = 0; i < n; i++) {
                champions[i] = serving.champion(coordinates[i]).orElse(null);
                challengers[i] = serving.challenger(coordinates[i]).orElse(null);
                anyChallenger |= challengers[i] != null;
            }
        }
        scoreBy(rows, champions, true, out.scores, out.models);
        if (anyChallenger) {
            scoreBy(rows, challengers, false, out.challengerScores, out.challengers);
        }
        noteSwitches(coordinates, champions);
        return out;
    }

    /** Takes the feed's newest view, waiting for one that covers {@code coordinate} if needed. */
    private void refreshView(long coordinate) {
        RegistryView latest = feed.current();
        if (latest == null || !latest.covers(coordinate)) {
            waits.inc();
            latest = await(coordinate);
        }
        if (latest != view) {
            useView(latest);
        }
    }

    private RegistryView await(long coordinate) {
        try {
            return feed.awaitCovering(coordinate, holdTimeout);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for the model registry", e);
        }
    }

    /**
     * Switches to {@code latest}, checking every release it assigns to this kind that was not
     * checked yet: the check runs before the release can serve, and a refusal is reported once.
     */
    private void useView(RegistryView latest) {
        view = latest;
        serving = new ServingModels(kind, latest.registry(), latest.completeThrough(), verdicts);
        for (ModelRole role : ModelRole.values()) {
            for (ModelRegistry.Assignment a : latest.registry().assignments(kind, role)) {
                ModelRegistry.Release r = a.release();
                if (r == null || !reported.add(r.sha256())) {
                    continue;
                }
                ReleaseCheck.Verdict verdict = verdicts.apply(r);
                if (verdict instanceof ReleaseCheck.Refused refusal) {
                    refused.inc();
                    LOG.warn(
                            "{}: {} release {} ({}, assigned {} from {}) REFUSED, it will not"
                                    + " serve: {}: {}",
                            subtask,
                            kind,
                            r.id(),
                            r.sha256(),
                            role,
                            a.effectiveFrom(),
                            refusal.reason(),
                            refusal.message());
                } else {
                    LOG.info(
                            "{}: {} release {} ({}) checked, may serve as {} from {}",
                            subtask,
                            kind,
                            r.id(),
                            r.sha256(),
                            role,
                            a.effectiveFrom());
                }
            }
        }
    }

    /**
     * Scores each row with the model {@code byRow} names for it (null: the start-up model for a
     * champion, nothing for a challenger), one model call per model.
     */
    private void scoreBy(
            List<? extends R> rows,
            ModelRegistry.Release[] byRow,
            boolean champion,
            double[] scores,
            ModelMetadata[] models) {
        ModelRole role = champion ? ModelRole.CHAMPION : ModelRole.CHALLENGER;
        if (allSame(byRow) && (champion || byRow[0] != null)) {
            OnnxScorer<R> model = byRow[0] == null ? startup : scorerOf(byRow[0]);
            double[] p = model.score(rows);
            System.arraycopy(p, 0, scores, 0, p.length);
            Arrays.fill(models, model.metadata());
            count(model.metadata().id(), role, rows.size());
            return;
        }
        Map<String, List<Integer>> groups = new LinkedHashMap<>();
        Map<String, ModelRegistry.Release> releases = new HashMap<>();
        for (int i = 0; i < byRow.length; i++) {
            ModelRegistry.Release r = byRow[i];
            if (r == null && !champion) {
                continue;
            }
            String key = r == null ? "" : r.sha256();
            groups.computeIfAbsent(key, k -> new ArrayList<>()).add(i);
            if (r != null) {
                releases.put(key, r);
            }
        }
        for (Map.Entry<String, List<Integer>> g : groups.entrySet()) {
            ModelRegistry.Release release = releases.get(g.getKey());
            OnnxScorer<R> model = release == null ? startup : scorerOf(release);
            List<Integer> idx = g.getValue();
            double[] p;
            if (idx.size() == rows.size()) {
                p = model.score(rows);
            } else {
                List<R> part = new ArrayList<>(idx.size());
                for (int i : idx) {
                    part.add(rows.get(i));
                }
                p = model.score(part);
            }
            for (int j = 0; j < idx.size(); j++) {
                scores[idx.get(j)] = p[j];
                models[idx.get(j)] = model.metadata();
            }
            count(model.metadata().id(), role, idx.size());
        }
    }

    private static boolean allSame(ModelRegistry.Release[] byRow) {
        for (ModelRegistry.Release r : byRow) {
            if (r != byRow[0]) {
                return false;
            }
        }
        return true;
    }

    private OnnxScorer<R> scorerOf(ModelRegistry.Release release) {
        return loaded.computeIfAbsent(
                release.sha256(),
                sha -> {
                    try {
                        return OnnxScorer.fromBytes(
                                release.onnx(), "release " + release.id(), startup.layout());
                    } catch (ModelLoadException e) {
                        // Accepted by the check, which loaded the same bytes: not expected.
                        throw new IllegalStateException(
                                "release " + release.id() + " passed its check but does not load",
                                e);
                    }
                });
    }

    private void count(String release, ModelRole role, int n) {
        scoredBy.computeIfAbsent(
                        role + "/" + release,
                        k ->
                                metrics.addGroup("release", release)
                                        .addGroup("role", role.name().toLowerCase())
                                        .counter(SCORED))
                .inc(n);
    }

    /**
     * Logs and counts a switch: the champion of the newest coordinate this subtask scored changed.
     * (Coordinates do not arrive in order, late re-fires and several partitions interleave; the
     * newest one is what a switch is about.)
     */
    private void noteSwitches(long[] coordinates, ModelRegistry.Release[] champions) {
        for (int i = 0; i < coordinates.length; i++) {
            if (coordinates[i] < newestCoordinate) {
                continue;
            }
            newestCoordinate = coordinates[i];
            String id = champions[i] == null ? startup.metadata().id() : champions[i].id();
            if (id.equals(newestChampion)) {
                continue;
            }
            if (newestChampion != null) {
                switches.inc();
            }
            LOG.info(
                    "{}: {} champion {} -> {} from coordinate {} ({})",
                    subtask,
                    kind,
                    newestChampion == null ? "(none yet)" : newestChampion,
                    id,
                    Instant.ofEpochMilli(coordinates[i]),
                    champions[i] == null
                            ? "the start-up model"
                            : "release " + champions[i].sha256());
            newestChampion = id;
        }
    }

    /** The release champion at {@code coordinate} in the current view (tests, diagnostics). */
    Optional<ModelRegistry.Release> championAt(long coordinate) {
        return serving == null ? Optional.empty() : serving.champion(coordinate);
    }

    @Override
    public void close() {
        try {
            if (feed != null) {
                feed.close();
            }
        } finally {
            loaded.values().forEach(OnnxScorer::close);
            startup.close();
        }
    }
}
