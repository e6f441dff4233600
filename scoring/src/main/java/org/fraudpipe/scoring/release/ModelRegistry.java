package org.fraudpipe.scoring.release;

import java.nio.ByteBuffer;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.fraudpipe.schemas.avro.AssignmentAction;
import org.fraudpipe.schemas.avro.ModelAssignment;
import org.fraudpipe.schemas.avro.ModelEvent;
import org.fraudpipe.schemas.avro.ModelKind;
import org.fraudpipe.schemas.avro.ModelRelease;
import org.fraudpipe.schemas.avro.ModelRole;
import org.fraudpipe.scoring.FeatureLayout;

/**
 * The model registry's state: the fold of the {@code model-releases} topic in its order, and the
 * one place of the registry's rules. {@code ./fraud model} folds the topic, asks this class for the
 * next event (which applies the rules and explains a refusal) and publishes it; the job folds the
 * same records and so knows the same releases and the same roles. Not thread-safe; pure (no clock:
 * the caller gives every instant).
 *
 * <p>Rules of the fold ({@link #apply}): an event that breaks one is ignored, with the reason, by
 * every reader alike:
 *
 * <ul>
 *   <li>a release is published once per kind and version; its {@code onnxSha256} is the SHA-256 of
 *       its bytes;
 *   <li>an assignment names a release published before it (kind, version and SHA-256);
 *   <li>it takes effect at least {@link #MIN_LEAD} after the broker appended it ({@code
 *       effectiveFrom >= append time + MIN_LEAD}): a scoring task has that long to read it before
 *       any transaction it concerns can arrive, which is what makes a switch land on the same
 *       transaction in the live run, after a failover and in a replay;
 *   <li>assignments of one kind and role take effect in the order they were published ({@code
 *       effectiveFrom} strictly increasing), so each one's key is unique and compaction keeps every
 *       one;
 *   <li>{@code PROMOTE} and {@code ROLLBACK} assign the champion, {@code SHADOW} and {@code
 *       WITHDRAW} the challenger; {@code WITHDRAW} names no release.
 * </ul>
 *
 * <p>Who holds a role at an instant ({@link #holder}): the release of the latest valid assignment
 * of that role with {@code effectiveFrom <=} the instant; none before the first (the job then
 * serves the model it was started with) or after a {@code WITHDRAW}; a challenger that is the
 * champion at that instant (promoted) is no challenger, and is one again if a rollback takes the
 * champion's role from it (its {@code SHADOW} was never withdrawn).
 */
public final class ModelRegistry {

    /** The least time between an assignment's append to the topic and its effect. */
    public static final Duration MIN_LEAD = Duration.ofSeconds(10);

    /**
     * The least lead {@link #assign} gives: {@link #MIN_LEAD} plus 5 s for the publisher's clock to
     * be behind the broker's and for the record to reach it.
     */
    public static final Duration MIN_PUBLISHED_LEAD = MIN_LEAD.plusSeconds(5);

    /** The default time {@code ./fraud model} gives an assignment before it takes effect. */
    public static final Duration DEFAULT_LEAD = Duration.ofSeconds(30);

    /**
     * A release in the registry.
     *
     * @param appendTime the broker's append time of its record, epoch millis
     */
    public record Release(
            ModelKind kind,
            String version,
            String sha256,
            String modelName,
            byte[] onnx,
            String card,
            long oneRowMicros,
            Instant publishedAt,
            String publishedBy,
            long appendTime) {

        /** {@code name:version}, as scores name their model. */
        public String id() {
            return modelName + ":" + version;
        }
    }

    /**
     * A valid assignment.
     *
     * @param release the release it assigns, null for {@code WITHDRAW}
     */
    public record Assignment(
            ModelKind kind,
            ModelRole role,
            AssignmentAction action,
            Release release,
            Instant effectiveFrom,
            String note,
            Instant publishedAt,
            String publishedBy,
            long appendTime) {}

    /** What {@link #apply} did with an event. */
    public sealed interface Outcome permits Applied, Ignored {}

    /** The event changed the registry. */
    public record Applied(String what) implements Outcome {}

    /** The event broke a rule and changed nothing. */
    public record Ignored(String why) implements Outcome {}

    private final Map<String, Release> releases = new LinkedHashMap<>();
    private final Map<ModelKind, Map<ModelRole, List<Assignment>>> assignments =
            new EnumMap<>(ModelKind.class);

    /** The record key of an event (unique per event when the rules hold). */
    public static String key(ModelEvent e) {
        if (e.getRelease() != null) {
            return "release:" + e.getKind() + ":" + e.getVersion() + ":" + sha(e);
        }
        ModelAssignment a = e.getAssignment();
        return "assignment:"
                + e.getKind()
                + ":"
                + a.getRole()
                + ":"
                + a.getEffectiveFrom().toEpochMilli();
    }

    private static String sha(ModelEvent e) {
        return e.getRelease().getOnnxSha256();
    }

    /** Hex SHA-256 of {@code bytes}. */
    public static String sha256(byte[] bytes) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is not available", e);
        }
    }

    /**
     * Applies the next event of the topic.
     *
     * @param appendTime the broker's timestamp of its record (the topic is {@code LogAppendTime})
     */
    public Outcome apply(ModelEvent e, long appendTime) {
        boolean isRelease = e.getRelease() != null;
        if (isRelease == (e.getAssignment() != null)) {
            return new Ignored("an event must hold exactly one of a release and an assignment");
        }
        return isRelease ? applyRelease(e, appendTime) : applyAssignment(e, appendTime);
    }

    private Outcome applyRelease(ModelEvent e, long appendTime) {
        ModelRelease r = e.getRelease();
        byte[] onnx = bytes(r.getOnnx());
        String what = e.getKind() + " release " + e.getVersion();
        if (e.getVersion().isEmpty()) {
            return new Ignored(what + ": no version");
        }
        if (!sha256(onnx).equals(r.getOnnxSha256())) {
            return new Ignored(what + ": its bytes do not have the SHA-256 it names");
        }
        Optional<Release> earlier = release(e.getKind(), e.getVersion());
        if (earlier.isPresent()) {
            return new Ignored(
                    what
                            + " was already published"
                            + (earlier.get().sha256().equals(r.getOnnxSha256())
                                    ? ""
                                    : " with other bytes (a version is published once: train a"
                                            + " new version)"));
        }
        Release release =
                new Release(
                        e.getKind(),
                        e.getVersion(),
                        r.getOnnxSha256(),
                        r.getModelName(),
                        onnx,
                        r.getCard(),
                        r.getOneRowMicros(),
                        e.getPublishedAt(),
                        e.getPublishedBy(),
                        appendTime);
        releases.put(releaseKey(e.getKind(), e.getVersion()), release);
        return new Applied(what + " published");
    }

    private Outcome applyAssignment(ModelEvent e, long appendTime) {
        ModelAssignment a = e.getAssignment();
        String what = e.getKind() + " " + a.getAction() + " of " + a.getRole();
        boolean champion = a.getRole() == ModelRole.CHAMPION;
        boolean actionFits =
                switch (a.getAction()) {
                    case PROMOTE, ROLLBACK -> champion;
                    case SHADOW, WITHDRAW -> !champion;
                };
        if (!actionFits) {
            return new Ignored(what + ": " + a.getAction() + " does not assign the " + a.getRole());
        }
        Release release = null;
        if (a.getAction() == AssignmentAction.WITHDRAW) {
            if (!e.getVersion().isEmpty()) {
                return new Ignored(what + ": a withdrawal names no release");
            }
        } else {
            Optional<Release> r = release(e.getKind(), e.getVersion());
            if (r.isEmpty() || !r.get().sha256().equals(a.getOnnxSha256())) {
                return new Ignored(
                        what + ": no " + e.getKind() + " release " + e.getVersion() + " published");
            }
            release = r.get();
        }
        long effective = a.getEffectiveFrom().toEpochMilli();
        if (effective < appendTime + MIN_LEAD.toMillis()) {
            return new Ignored(
                    what
                            + ": effective at "
                            + a.getEffectiveFrom()
                            + ", less than "
                            + MIN_LEAD.toSeconds()
                            + " s after it was appended ("
                            + Instant.ofEpochMilli(appendTime)
                            + ")");
        }
        List<Assignment> history = history(e.getKind(), a.getRole());
        if (!history.isEmpty()
                && !history.get(history.size() - 1)
                        .effectiveFrom()
                        .isBefore(a.getEffectiveFrom())) {
            return new Ignored(
                    what
                            + ": effective at "
                            + a.getEffectiveFrom()
                            + ", not after the previous one ("
                            + history.get(history.size() - 1).effectiveFrom()
                            + ")");
        }
        history.add(
                new Assignment(
                        e.getKind(),
                        a.getRole(),
                        a.getAction(),
                        release,
                        a.getEffectiveFrom(),
                        a.getNote(),
                        e.getPublishedAt(),
                        e.getPublishedBy(),
                        appendTime));
        return new Applied(
                what
                        + (release == null ? "" : " to " + release.version())
                        + " effective "
                        + a.getEffectiveFrom());
    }

    /** The release of {@code kind} and {@code version}, if published. */
    public Optional<Release> release(ModelKind kind, String version) {
        return Optional.ofNullable(releases.get(releaseKey(kind, version)));
    }

    /** Every release of {@code kind}, in publishing order. */
    public List<Release> releases(ModelKind kind) {
        return releases.values().stream().filter(r -> r.kind() == kind).toList();
    }

    /** Every valid assignment of {@code kind} and {@code role}, in effect order. */
    public List<Assignment> assignments(ModelKind kind, ModelRole role) {
        return List.copyOf(history(kind, role));
    }

    /** The assignment in effect for {@code role} at {@code atMillis}, if any. */
    public Optional<Assignment> assignmentAt(ModelKind kind, ModelRole role, long atMillis) {
        List<Assignment> h = history(kind, role);
        for (int i = h.size() - 1; i >= 0; i--) {
            if (h.get(i).effectiveFrom().toEpochMilli() <= atMillis) {
                return Optional.of(h.get(i));
            }
        }
        return Optional.empty();
    }

    /** The release holding {@code role} at {@code atMillis}, if any (see the class comment). */
    public Optional<Release> holder(ModelKind kind, ModelRole role, long atMillis) {
        Optional<Release> holder = assignmentAt(kind, role, atMillis).map(Assignment::release);
        if (role == ModelRole.CHALLENGER && holder.isPresent()) {
            Optional<Release> champion = holder(kind, ModelRole.CHAMPION, atMillis);
            if (champion.isPresent() && same(champion.get(), holder.get())) {
                return Optional.empty(); // a challenger promoted is no longer a challenger
            }
        }
        return holder;
    }

    // --- the next event, as ./fraud model builds it -------------------------------------------

    /**
     * The release event of a model file already checked ({@code ReleaseCheck}).
     *
     * @throws IllegalArgumentException if that version of the kind is already published
     */
    public ModelEvent release(
            ModelKind kind,
            String modelName,
            String version,
            byte[] onnx,
            String card,
            long oneRowMicros,
            Instant now,
            String by) {
        Optional<Release> earlier = release(kind, version);
        if (earlier.isPresent()) {
            throw new IllegalArgumentException(
                    kind
                            + " release "
                            + version
                            + " is already published"
                            + (earlier.get().sha256().equals(sha256(onnx))
                                    ? " (the same file): nothing to do"
                                    : " with other bytes: a version is published once, so train"
                                            + " (or name) a new version"));
        }
        return ModelEvent.newBuilder()
                .setKind(kind)
                .setVersion(version)
                .setPublishedAt(now)
                .setPublishedBy(by)
                .setRelease(
                        ModelRelease.newBuilder()
                                .setModelName(modelName)
                                .setOnnx(ByteBuffer.wrap(onnx))
                                .setOnnxSha256(sha256(onnx))
                                .setCard(card)
                                .setOneRowMicros(oneRowMicros)
                                .build())
                .build();
    }

    /**
     * The assignment of {@code action}, effective {@code lead} after {@code now}.
     *
     * @param version the release to assign; for {@code ROLLBACK} ignored (the champion before the
     *     current one), for {@code WITHDRAW} ignored
     * @throws IllegalArgumentException naming the rule it would break
     */
    public ModelEvent assign(
            ModelKind kind,
            AssignmentAction action,
            String version,
            Instant now,
            Duration lead,
            String note,
            String by) {
        if (lead.compareTo(MIN_PUBLISHED_LEAD) < 0) {
            throw new IllegalArgumentException(
                    "the lead must be at least "
                            + MIN_PUBLISHED_LEAD.toSeconds()
                            + " s (the registry ignores an assignment that takes effect less than "
                            + MIN_LEAD.toSeconds()
                            + " s after the broker appended it), got "
                            + lead.toSeconds()
                            + " s");
        }
        Instant effective = now.plus(lead);
        long at = effective.toEpochMilli();
        ModelRole role =
                action == AssignmentAction.PROMOTE || action == AssignmentAction.ROLLBACK
                        ? ModelRole.CHAMPION
                        : ModelRole.CHALLENGER;
        Optional<Release> champion = holder(kind, ModelRole.CHAMPION, at);
        Optional<Release> challenger = holder(kind, ModelRole.CHALLENGER, at);
        Release target =
                switch (action) {
                    case PROMOTE, SHADOW -> {
                        Release r =
                                release(kind, version)
                                        .orElseThrow(
                                                () ->
                                                        new IllegalArgumentException(
                                                                "no "
                                                                        + kind
                                                                        + " release "
                                                                        + version
                                                                        + " is published: publish"
                                                                        + " it first"));
                        if (champion.isPresent() && same(champion.get(), r)) {
                            throw new IllegalArgumentException(
                                    kind + " release " + version + " is the champion already");
                        }
                        if (action == AssignmentAction.SHADOW
                                && challenger.isPresent()
                                && same(challenger.get(), r)) {
                            throw new IllegalArgumentException(
                                    kind + " release " + version + " is the challenger already");
                        }
                        yield r;
                    }
                    case ROLLBACK -> previousChampion(kind, at);
                    case WITHDRAW -> {
                        if (challenger.isEmpty()) {
                            throw new IllegalArgumentException(
                                    "no " + kind + " challenger to withdraw");
                        }
                        yield null;
                    }
                };
        List<Assignment> history = history(kind, role);
        if (!history.isEmpty()
                && !history.get(history.size() - 1).effectiveFrom().isBefore(effective)) {
            throw new IllegalArgumentException(
                    "the last "
                            + kind
                            + " "
                            + role
                            + " assignment takes effect at "
                            + history.get(history.size() - 1).effectiveFrom()
                            + ", not before this one would ("
                            + effective
                            + "): wait for it, or give a longer lead");
        }
        return ModelEvent.newBuilder()
                .setKind(kind)
                .setVersion(target == null ? "" : target.version())
                .setPublishedAt(now)
                .setPublishedBy(by)
                .setAssignment(
                        ModelAssignment.newBuilder()
                                .setRole(role)
                                .setAction(action)
                                .setOnnxSha256(target == null ? "" : target.sha256())
                                .setEffectiveFrom(effective)
                                .setNote(note == null ? "" : note)
                                .build())
                .build();
    }

    /**
     * The champion before the one in effect at {@code at}: walking back over the champion
     * assignments, the first release other than the current one.
     */
    private Release previousChampion(ModelKind kind, long at) {
        List<Assignment> h = history(kind, ModelRole.CHAMPION);
        int current = -1;
        for (int i = h.size() - 1; i >= 0; i--) {
            if (h.get(i).effectiveFrom().toEpochMilli() <= at) {
                current = i;
                break;
            }
        }
        if (current < 0) {
            throw new IllegalArgumentException(
                    "no "
                            + kind
                            + " champion in the registry to roll back from (the job serves the"
                            + " model it was started with)");
        }
        Release now = h.get(current).release();
        for (int i = current - 1; i >= 0; i--) {
            if (!same(h.get(i).release(), now)) {
                return h.get(i).release();
            }
        }
        throw new IllegalArgumentException(
                "no "
                        + kind
                        + " champion before "
                        + now.version()
                        + " in the registry to roll back to (the model the job was started with"
                        + " is not a release: publish it and promote it)");
    }

    private List<Assignment> history(ModelKind kind, ModelRole role) {
        return assignments
                .computeIfAbsent(kind, k -> new EnumMap<>(ModelRole.class))
                .computeIfAbsent(role, r -> new ArrayList<>());
    }

    private static String releaseKey(ModelKind kind, String version) {
        return kind + ":" + version;
    }

    private static byte[] bytes(ByteBuffer b) {
        ByteBuffer d = b.duplicate();
        byte[] out = new byte[d.remaining()];
        d.get(out);
        return out;
    }

    private static boolean same(Release a, Release b) {
        return a.kind() == b.kind() && a.sha256().equals(b.sha256());
    }

    /** The feature layout a model of {@code kind} must fit. */
    public static FeatureLayout<?> layout(ModelKind kind) {
        return switch (kind) {
            case WINDOW -> FeatureLayout.V1;
            case TRANSACTION -> FeatureLayout.TRANSACTION_V1;
        };
    }
}
