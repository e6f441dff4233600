package org.fraudpipe.parity.input;

import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.apache.flink.core.fs.FileSystem;
import org.apache.flink.core.fs.Path;
import org.fraudpipe.job.archive.ArchivePolicy;
import org.fraudpipe.job.config.Durations;
import org.fraudpipe.job.config.JobOption;
import org.fraudpipe.parity.ParityPeriod;

/**
 * Which event-time policy a parity run judges the job's labels by: the one the job recorded (in its
 * archive's {@code policy/}, or a replay's {@code policy.json} next to its outputs), never a flag
 * that could disagree with the job. Options with the job's names are accepted only where nothing
 * was recorded (an archive older than recorded policies), or to state what the run expects: a flag
 * that disagrees with the recorded policy, or two policies effective in one period, is bad input
 * (exit 2) naming both.
 */
public final class PolicyResolver {

    /** The options a run may give, in the job's names, with how to read them off a policy. */
    private static final Map<String, Function<ArchivePolicy, Duration>> OPTIONS =
            new LinkedHashMap<>();

    static {
        OPTIONS.put(JobOption.WINDOW_SIZE.key(), ArchivePolicy::windowSize);
        OPTIONS.put(JobOption.ALLOWED_LATENESS.key(), ArchivePolicy::allowedLateness);
        OPTIONS.put(JobOption.OUT_OF_ORDERNESS.key(), ArchivePolicy::outOfOrderness);
        OPTIONS.put(JobOption.IDLENESS.key(), ArchivePolicy::idleness);
        OPTIONS.put(JobOption.FUTURE_TOLERANCE.key(), ArchivePolicy::futureTolerance);
    }

    private PolicyResolver() {}

    /**
     * The policy a run uses, and where it came from (for the report).
     *
     * @param source the recorded file(s), or that it came from options and the job's defaults
     */
    public record Resolved(ArchivePolicy policy, String source) {}

    /** The job's defaults, as a policy. */
    public static ArchivePolicy jobDefaults() {
        return new ArchivePolicy(
                Durations.parse(JobOption.WINDOW_SIZE.defaultValue()),
                Durations.parse(JobOption.ALLOWED_LATENESS.defaultValue()),
                Durations.parse(JobOption.OUT_OF_ORDERNESS.defaultValue()),
                Durations.parse(JobOption.IDLENESS.defaultValue()),
                Durations.parse(JobOption.FUTURE_TOLERANCE.defaultValue()));
    }

    /** The policies recorded in the archive at {@code root} (its {@code policy/}), oldest first. */
    public static List<ArchivePolicy.Recorded> recordedInArchive(String root)
            throws ParityInputException {
        try {
            return ArchivePolicy.readAll(new Path(root));
        } catch (IOException | IllegalArgumentException e) {
            throw new ParityInputException(
                    "cannot read the policy the job recorded in " + root + ": " + e.getMessage(),
                    e);
        }
    }

    /**
     * The policy recorded for explicitly named served features: a replay's {@value
     * ArchivePolicy#FILE} next to its {@code features.jsonl}, or the {@code policy/} of the archive
     * whose {@code features/} directory was named; empty if none.
     */
    public static List<ArchivePolicy.Recorded> recordedFor(String served)
            throws ParityInputException {
        Path p = new Path(served);
        try {
            FileSystem fs = p.getFileSystem();
            if (fs.getFileStatus(p).isDir()) {
                return ArchivePolicy.readAll(p.getParent());
            }
            Path file = new Path(p.getParent(), ArchivePolicy.FILE);
            return fs.exists(file) ? List.of(ArchivePolicy.readFile(file)) : List.of();
        } catch (IOException | IllegalArgumentException e) {
            throw new ParityInputException(
                    "cannot read the policy recorded next to " + served + ": " + e.getMessage(), e);
        }
    }

    /**
     * Chooses the policy: the recorded ones effective for the run (the last recorded before the
     * period starts, and every one recorded before {@code readEnd}, the last arrival the run
     * reads), which must all be equal; with none recorded, the job's defaults overridden by {@code
     * given}. Every option in {@code given} must agree with a recorded policy.
     *
     * @param given option name (the job's) to the value the user gave
     * @throws ParityInputException naming both policies (or the flag and the policy) on a mismatch
     */
    public static Resolved resolve(
            List<ArchivePolicy.Recorded> recorded,
            ParityPeriod period,
            Instant readEnd,
            Map<String, Duration> given)
            throws ParityInputException {
        for (String option : given.keySet()) {
            if (!OPTIONS.containsKey(option)) {
                throw new IllegalArgumentException("not a policy option: " + option);
            }
        }
        if (recorded.isEmpty()) {
            ArchivePolicy d = jobDefaults();
            ArchivePolicy p =
                    new ArchivePolicy(
                            given.getOrDefault(JobOption.WINDOW_SIZE.key(), d.windowSize()),
                            given.getOrDefault(
                                    JobOption.ALLOWED_LATENESS.key(), d.allowedLateness()),
                            given.getOrDefault(
                                    JobOption.OUT_OF_ORDERNESS.key(), d.outOfOrderness()),
                            given.getOrDefault(JobOption.IDLENESS.key(), d.idleness()),
                            given.getOrDefault(
                                    JobOption.FUTURE_TOLERANCE.key(), d.futureTolerance()));
            return new Resolved(
                    p,
                    "options and the job's defaults (no policy recorded with the inputs:"
                            + " the labels are checked against these)");
        }
        List<ArchivePolicy.Recorded> effective = effective(recorded, period, readEnd);
        ArchivePolicy.Recorded first = effective.get(0);
        for (ArchivePolicy.Recorded r : effective) {
            if (!r.policy().equals(first.policy())) {
                throw new ParityInputException(
                        "two event-time policies were in force in this period, so the job's labels"
                                + " cannot be judged by one: "
                                + describe(first)
                                + " and "
                                + describe(r)
                                + ". Check the periods before and after the change separately.");
            }
        }
        for (Map.Entry<String, Duration> g : given.entrySet()) {
            Duration recordedValue = OPTIONS.get(g.getKey()).apply(first.policy());
            if (!g.getValue().equals(recordedValue)) {
                throw new ParityInputException(
                        "--"
                                + g.getKey()
                                + " "
                                + Durations.format(g.getValue())
                                + " disagrees with the policy the job recorded: "
                                + describe(first)
                                + ". Leave the option out (the recorded policy is used) or check"
                                + " the right inputs.");
            }
        }
        List<String> sources = new ArrayList<>();
        effective.forEach(r -> sources.add(r.source()));
        return new Resolved(first.policy(), "recorded: " + String.join(", ", sources));
    }

    private static List<ArchivePolicy.Recorded> effective(
            List<ArchivePolicy.Recorded> recorded, ParityPeriod period, Instant readEnd) {
        if (!period.isBounded()) {
            return recorded;
        }
        int start = 0;
        for (int i = 0; i < recorded.size(); i++) {
            Instant at = recorded.get(i).recordedAt();
            if (at == null || !at.isAfter(period.from())) {
                start = i;
            }
        }
        List<ArchivePolicy.Recorded> out = new ArrayList<>();
        for (int i = start; i < recorded.size(); i++) {
            Instant at = recorded.get(i).recordedAt();
            if (i == start || at == null || at.isBefore(readEnd)) {
                out.add(recorded.get(i));
            }
        }
        return out;
    }

    private static String describe(ArchivePolicy.Recorded r) {
        return r.policy().describe()
                + " ("
                + r.source()
                + (r.recordedAt() == null ? "" : ", recorded " + r.recordedAt())
                + ")";
    }
}
