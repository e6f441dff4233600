package org.fraudpipe.scoring.release;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import org.fraudpipe.schemas.avro.ModelKind;
import org.fraudpipe.schemas.avro.ModelRole;
import org.fraudpipe.scoring.ReleaseCheck;

/**
 * Which release scores a record of one kind in the running job: the registry's view on a scoring
 * subtask, with that subtask's verdicts on the releases, asked by the record's <em>coordinate</em>
 * (a transaction's Kafka timestamp, a pane's window start), never by the wall clock, so that the
 * live run, a failover and a replay pick the same release for the same record.
 *
 * <p>Invariants:
 *
 * <ul>
 *   <li>A view answers only for coordinates it {@link #covers}: up to {@code completeThrough}, the
 *       time before which no assignment not yet read can take effect (the follower read the topic
 *       to the end offset it had at wall time W, and every later append takes effect at least
 *       {@link ModelRegistry#MIN_LEAD} after W, less a clock allowance). Asking beyond is a
 *       programming error: the caller holds the record until a newer view covers it.
 *   <li>A release serves only once its byte-determined checks passed ({@link
 *       ReleaseCheck#checkContent}: load, layout, test vectors); the verdict is a function of the
 *       bytes, so every subtask reaches the same one. A champion assignment whose release is
 *       refused is skipped: the latest earlier champion assignment with an accepted release serves,
 *       or the model the job was started with ({@link Optional#empty()}).
 *   <li>A challenger serves beside the champion, never for a decision; one that is refused, or that
 *       is the champion at the coordinate, is no challenger.
 * </ul>
 *
 * <p>Not thread-safe: one per scoring subtask, replaced by a newer one as the follower reads on
 * (the {@link ModelRegistry} it wraps must not change while this view is used).
 */
public final class ServingModels {

    private final ModelKind kind;
    private final ModelRegistry registry;
    private final long completeThrough;
    private final Function<ModelRegistry.Release, ReleaseCheck.Verdict> verdicts;
    private final List<ModelRegistry.Assignment> champions;
    private final long[] effectiveTimes;

    /**
     * @param registry the fold of the topic read so far
     * @param completeThrough epoch millis: no assignment not in {@code registry} takes effect at or
     *     before it
     * @param verdicts this subtask's verdict on a release (memoize it: {@link #memoizedChecks})
     */
    public ServingModels(
            ModelKind kind,
            ModelRegistry registry,
            long completeThrough,
            Function<ModelRegistry.Release, ReleaseCheck.Verdict> verdicts) {
        this.kind = kind;
        this.registry = registry;
        this.completeThrough = completeThrough;
        this.verdicts = verdicts;
        this.champions = registry.assignments(kind, ModelRole.CHAMPION);
        this.effectiveTimes =
                java.util.stream.Stream.concat(
                                champions.stream(),
                                registry.assignments(kind, ModelRole.CHALLENGER).stream())
                        .mapToLong(a -> a.effectiveFrom().toEpochMilli())
                        .sorted()
                        .toArray();
    }

    /**
     * Whether every coordinate in {@code [from, to]} gets the same champion and challenger: no
     * assignment of this kind takes effect in {@code (from, to]}. What lets a batch be scored
     * without a look-up per record.
     */
    public boolean sameBetween(long from, long to) {
        requireCovered(to);
        for (long t : effectiveTimes) {
            if (t > from && t <= to) {
                return false;
            }
        }
        return true;
    }

    /** Whether this view decides the release at {@code coordinate}. */
    public boolean covers(long coordinate) {
        return coordinate <= completeThrough;
    }

    /** Epoch millis through which this view is complete. */
    public long completeThrough() {
        return completeThrough;
    }

    /**
     * The release that decides a record at {@code coordinate}; empty for the model the job was
     * started with.
     *
     * @throws IllegalStateException if the view does not {@link #covers cover} the coordinate
     */
    public Optional<ModelRegistry.Release> champion(long coordinate) {
        requireCovered(coordinate);
        for (int i = champions.size() - 1; i >= 0; i--) {
            ModelRegistry.Assignment a = champions.get(i);
            if (a.effectiveFrom().toEpochMilli() <= coordinate && accepted(a.release())) {
                return Optional.of(a.release());
            }
        }
        return Optional.empty();
    }

    /**
     * The release scored beside the champion at {@code coordinate}, if any.
     *
     * @throws IllegalStateException if the view does not {@link #covers cover} the coordinate
     */
    public Optional<ModelRegistry.Release> challenger(long coordinate) {
        requireCovered(coordinate);
        Optional<ModelRegistry.Release> challenger =
                registry.assignmentAt(kind, ModelRole.CHALLENGER, coordinate)
                        .map(ModelRegistry.Assignment::release)
                        .filter(this::accepted);
        Optional<ModelRegistry.Release> champion = champion(coordinate);
        if (challenger.isPresent()
                && champion.isPresent()
                && champion.get().sha256().equals(challenger.get().sha256())) {
            return Optional.empty();
        }
        return challenger;
    }

    /** This subtask's refusal of {@code release}, if it refused it. */
    public Optional<ReleaseCheck.Refused> refusal(ModelRegistry.Release release) {
        return verdicts.apply(release) instanceof ReleaseCheck.Refused r
                ? Optional.of(r)
                : Optional.empty();
    }

    private boolean accepted(ModelRegistry.Release release) {
        return release != null && verdicts.apply(release) instanceof ReleaseCheck.Accepted;
    }

    private void requireCovered(long coordinate) {
        if (!covers(coordinate)) {
            throw new IllegalStateException(
                    "the registry view is complete through "
                            + completeThrough
                            + ", not "
                            + coordinate
                            + ": hold the record until a newer view covers it");
        }
    }

    /**
     * The byte-determined release check ({@link ReleaseCheck#checkContent}) against the layout of
     * the release's kind, run once per release (by SHA-256) and remembered: the map is the
     * subtask's record of what it accepted and refused. Not thread-safe.
     */
    public static Function<ModelRegistry.Release, ReleaseCheck.Verdict> memoizedChecks() {
        Map<String, ReleaseCheck.Verdict> seen = new HashMap<>();
        return release ->
                seen.computeIfAbsent(
                        release.kind() + ":" + release.sha256(),
                        k ->
                                ReleaseCheck.checkContent(
                                        release.onnx(),
                                        "release " + release.id(),
                                        ModelRegistry.layout(release.kind())));
    }
}
