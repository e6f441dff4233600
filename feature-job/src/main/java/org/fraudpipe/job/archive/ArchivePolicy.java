package org.fraudpipe.job.archive;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.Serializable;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.List;
import java.util.Objects;
import org.apache.flink.core.fs.FileStatus;
import org.apache.flink.core.fs.FileSystem;
import org.apache.flink.core.fs.Path;
import org.fraudpipe.job.config.Durations;
import org.fraudpipe.job.config.JobConfig;
import org.fraudpipe.job.config.JobOption;
import org.fraudpipe.job.window.FeatureWindowSpec;
import org.fraudpipe.job.window.ProcessingTimeSource;

/**
 * The event-time policy the job ran with, as the archive records it for the batch parity check:
 * window size, allowed lateness, watermark bound (out-of-orderness), idleness and future tolerance.
 * Parity judges the job's late and quarantine labels against this record, never against flags that
 * could disagree with the job.
 *
 * <p>Where: {@code <archive root>/}{@value #DIRECTORY}{@code /policy-<recordedAt
 * millis>-<hash>.json}, one file per activation of a policy that differs from the latest one
 * recorded ({@link #record}): restarts and failovers with the same policy write nothing, a
 * redeployment with another lateness adds a file, so the files are the policy's history. A replay
 * writes {@value #FILE} next to its outputs (and records into its archive like the job).
 *
 * <p>Format: a JSON object with the job's option names as keys and durations in the job's own
 * notation ({@code 10m}); {@code idleness} is {@code "none"} where the watermark has no idleness (a
 * replay: one watermark per record); {@code recordedAt} (ISO-8601, absent in a replay's file) is
 * when a job with this policy first started writing the archive.
 *
 * @param idleness null: no idleness (partitions are never excluded from the watermark)
 */
public record ArchivePolicy(
        Duration windowSize,
        Duration allowedLateness,
        Duration outOfOrderness,
        Duration idleness,
        Duration futureTolerance)
        implements Serializable {

    /** The policy directory under the archive root. */
    public static final String DIRECTORY = "policy";

    /** The file a replay writes next to its outputs. */
    public static final String FILE = "policy.json";

    private static final String PREFIX = "policy-";
    private static final String SUFFIX = ".json";
    private static final String RECORDED_AT = "recordedAt";
    private static final String NONE = "none";
    private static final ObjectMapper JSON = new ObjectMapper();

    public ArchivePolicy {
        Objects.requireNonNull(windowSize, "windowSize");
        Objects.requireNonNull(allowedLateness, "allowedLateness");
        Objects.requireNonNull(outOfOrderness, "outOfOrderness");
        Objects.requireNonNull(futureTolerance, "futureTolerance");
    }

    /** The policy of the streaming job configured by {@code config}. */
    public static ArchivePolicy of(JobConfig config) {
        return new ArchivePolicy(
                config.windowSize(),
                config.allowedLateness(),
                config.outOfOrderness(),
                config.idleness(),
                config.futureTolerance());
    }

    /** The windows of this policy, processing-time fields from {@code processingTime}. */
    public FeatureWindowSpec windows(ProcessingTimeSource processingTime) {
        return new FeatureWindowSpec(windowSize, allowedLateness, processingTime);
    }

    /** One line, with the job's option names: {@code window-size=10m allowed-lateness=2m ...}. */
    public String describe() {
        return JobOption.WINDOW_SIZE.key()
                + "="
                + Durations.format(windowSize)
                + " "
                + JobOption.ALLOWED_LATENESS.key()
                + "="
                + Durations.format(allowedLateness)
                + " "
                + JobOption.OUT_OF_ORDERNESS.key()
                + "="
                + Durations.format(outOfOrderness)
                + " "
                + JobOption.IDLENESS.key()
                + "="
                + (idleness == null ? NONE : Durations.format(idleness))
                + " "
                + JobOption.FUTURE_TOLERANCE.key()
                + "="
                + Durations.format(futureTolerance);
    }

    @Override
    public String toString() {
        return describe();
    }

    /** The JSON of this policy; {@code recordedAt} may be null (a replay's file). */
    public String toJson(Instant recordedAt) {
        ObjectNode o = JSON.createObjectNode();
        o.put(JobOption.WINDOW_SIZE.key(), Durations.format(windowSize));
        o.put(JobOption.ALLOWED_LATENESS.key(), Durations.format(allowedLateness));
        o.put(JobOption.OUT_OF_ORDERNESS.key(), Durations.format(outOfOrderness));
        o.put(JobOption.IDLENESS.key(), idleness == null ? NONE : Durations.format(idleness));
        o.put(JobOption.FUTURE_TOLERANCE.key(), Durations.format(futureTolerance));
        if (recordedAt != null) {
            o.put(RECORDED_AT, recordedAt.toString());
        }
        return o.toPrettyString() + "\n";
    }

    /**
     * Parses a policy file.
     *
     * @param source where it was read, for the message
     * @throws IllegalArgumentException naming {@code source} if it is not a policy
     */
    public static Recorded parse(String json, String source) {
        try {
            JsonNode o = JSON.readTree(json);
            ArchivePolicy p =
                    new ArchivePolicy(
                            duration(o, JobOption.WINDOW_SIZE.key()),
                            duration(o, JobOption.ALLOWED_LATENESS.key()),
                            duration(o, JobOption.OUT_OF_ORDERNESS.key()),
                            NONE.equals(text(o, JobOption.IDLENESS.key()))
                                    ? null
                                    : duration(o, JobOption.IDLENESS.key()),
                            duration(o, JobOption.FUTURE_TOLERANCE.key()));
            Instant at =
                    o.hasNonNull(RECORDED_AT) ? Instant.parse(o.get(RECORDED_AT).asText()) : null;
            return new Recorded(p, at, source);
        } catch (IOException | RuntimeException e) {
            throw new IllegalArgumentException(
                    source + " is not a policy file of the job: " + e.getMessage(), e);
        }
    }

    private static String text(JsonNode o, String key) {
        JsonNode v = o.get(key);
        if (v == null || !v.isTextual()) {
            throw new IllegalArgumentException("no \"" + key + "\"");
        }
        return v.asText();
    }

    private static Duration duration(JsonNode o, String key) {
        return Durations.parse(text(o, key));
    }

    /**
     * Records {@code policy} under {@code root}/{@value #DIRECTORY}, unless the latest policy
     * recorded there is the same: idempotent, so every (re)start of the job may call it.
     *
     * @param now when it comes into force; null: since always (a replay, whose archive holds one
     *     input under one policy)
     * @return whether a file was written
     */
    public static boolean record(Path root, ArchivePolicy policy, Instant now) throws IOException {
        List<Recorded> history = readAll(root);
        if (!history.isEmpty() && history.get(history.size() - 1).policy().equals(policy)) {
            return false;
        }
        Path dir = new Path(root, DIRECTORY);
        FileSystem fs = dir.getFileSystem();
        fs.mkdirs(dir);
        byte[] bytes = policy.toJson(now).getBytes(StandardCharsets.UTF_8);
        String name =
                PREFIX
                        + String.format("%013d", now == null ? 0 : now.toEpochMilli())
                        + "-"
                        + hash(policy.toJson(null))
                        + SUFFIX;
        // Written under a hidden name, then renamed: readers never see half a file.
        Path hidden = new Path(dir, "." + name + ".tmp");
        try (OutputStream out = fs.create(hidden, FileSystem.WriteMode.OVERWRITE)) {
            out.write(bytes);
        }
        Path target = new Path(dir, name);
        if (!fs.rename(hidden, target)) {
            fs.delete(hidden, false);
            if (!fs.exists(target)) {
                throw new IOException("could not write the archive's policy file " + target);
            }
        }
        return true;
    }

    /**
     * Every policy recorded under {@code root}/{@value #DIRECTORY}, oldest first (hidden files
     * skipped); empty if there is none (an archive written before policies were recorded).
     *
     * @throws IllegalArgumentException naming a file that is not a policy
     */
    public static List<Recorded> readAll(Path root) throws IOException {
        Path dir = new Path(root, DIRECTORY);
        FileSystem fs = dir.getFileSystem();
        List<Recorded> out = new ArrayList<>();
        if (!fs.exists(dir)) {
            return out;
        }
        FileStatus[] files = fs.listStatus(dir);
        if (files == null) {
            return out;
        }
        for (FileStatus f : files) {
            String name = f.getPath().getName();
            if (f.isDir()
                    || name.startsWith(".")
                    || name.startsWith("_")
                    || !name.endsWith(SUFFIX)) {
                continue;
            }
            out.add(parse(read(f.getPath()), f.getPath().toString()));
        }
        out.sort(
                Comparator.comparing(
                                Recorded::recordedAt,
                                Comparator.nullsFirst(Comparator.naturalOrder()))
                        .thenComparing(Recorded::source));
        return out;
    }

    /** Reads one policy file (e.g. a replay's {@value #FILE}). */
    public static Recorded readFile(Path file) throws IOException {
        return parse(read(file), file.toString());
    }

    private static String read(Path file) throws IOException {
        try (InputStream in = file.getFileSystem().open(file)) {
            ByteArrayOutputStream buf = new ByteArrayOutputStream();
            in.transferTo(buf);
            return buf.toString(StandardCharsets.UTF_8);
        }
    }

    private static String hash(String text) {
        try {
            byte[] d =
                    MessageDigest.getInstance("SHA-256")
                            .digest(text.getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(d, 0, 6);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * One recorded policy.
     *
     * @param recordedAt when a job with it first wrote the archive; null in a replay's file
     * @param source the file it was read from
     */
    public record Recorded(ArchivePolicy policy, Instant recordedAt, String source)
            implements Serializable {}
}
