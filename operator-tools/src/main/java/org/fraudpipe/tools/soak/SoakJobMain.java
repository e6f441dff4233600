package org.fraudpipe.tools.soak;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestOptions;
import org.apache.flink.configuration.StateRecoveryOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.execution.SavepointFormatType;
import org.fraudpipe.job.KafkaFeatureJob;
import org.fraudpipe.job.cli.LocalSplit;
import org.fraudpipe.job.config.JobConfig;

/**
 * The job under the soak's faults, in a JVM of its own ({@link SoakJob} starts it), so that the
 * nemesis can kill it hard: the production job ({@link KafkaFeatureJob}, both paths in one job) in
 * its own MiniCluster, optionally restored from a savepoint or a retained checkpoint.
 *
 * <p>Arguments: {@code <control dir> <rest port> <restore path or "-">}, then the job's options as
 * {@code --key value} pairs. Once submitted, the job's id is in {@code <control dir>/job-id}. Then
 * it obeys its standard input, a command a line: {@code savepoint <dir>} and {@code drain <dir>}
 * stop the job with a savepoint into {@code dir} (with a drain: every window fires its final
 * result), write its path to {@code <control dir>/savepoint} and exit 0; {@code cancel}, or the end
 * of the input, cancels and exits. A job that fails for good exits 1. The JVM halts with the soak's
 * ({@link LocalSplit#haltWithParent}).
 */
public final class SoakJobMain {

    static final String JOB_ID_FILE = "job-id";
    static final String SAVEPOINT_FILE = "savepoint";
    static final String SAVEPOINT = "savepoint ";
    static final String DRAIN = "drain ";
    static final String CANCEL = "cancel";
    static final String NO_RESTORE = "-";

    private SoakJobMain() {}

    public static void main(String[] args) throws Exception {
        LocalSplit.haltWithParent();
        // The checkpoint, savepoint and archive URIs may be s3p:// and s3a://.
        org.fraudpipe.job.topology.JobEnvironment.initializeFileSystems();
        Path control = Path.of(args[0]);
        int restPort = Integer.parseInt(args[1]);
        String restore = args[2];
        Map<String, String> options = new LinkedHashMap<>();
        for (int i = 3; i + 1 < args.length; i += 2) {
            options.put(args[i].substring(2), args[i + 1]);
        }
        Configuration flink = new Configuration();
        flink.set(RestOptions.ADDRESS, "localhost");
        flink.set(RestOptions.BIND_ADDRESS, "localhost");
        flink.set(RestOptions.PORT, restPort);
        flink.set(RestOptions.BIND_PORT, Integer.toString(restPort));
        if (!restore.equals(NO_RESTORE)) {
            flink.set(StateRecoveryOptions.SAVEPOINT_PATH, restore);
        }
        JobClient job = KafkaFeatureJob.prepare(JobConfig.of(options), flink).executeAsync();
        writeAtomically(control.resolve(JOB_ID_FILE), job.getJobID().toString());
        job.getJobExecutionResult()
                .whenComplete(
                        (result, failure) -> {
                            if (failure != null) {
                                failure.printStackTrace();
                                Runtime.getRuntime().halt(1);
                            }
                        });
        BufferedReader in =
                new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        for (String line = in.readLine(); line != null; line = in.readLine()) {
            boolean drain = line.startsWith(DRAIN);
            if (drain || line.startsWith(SAVEPOINT)) {
                String dir = line.substring(drain ? DRAIN.length() : SAVEPOINT.length());
                String savepoint =
                        job.stopWithSavepoint(drain, dir, SavepointFormatType.CANONICAL).get();
                job.getJobExecutionResult().get();
                writeAtomically(control.resolve(SAVEPOINT_FILE), savepoint);
                System.exit(0);
            } else if (line.equals(CANCEL)) {
                break;
            }
        }
        job.cancel().get();
        System.exit(0);
    }

    /** Written whole or not at all: the soak polls for the file. */
    static void writeAtomically(Path file, String content) throws IOException {
        Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
        Files.writeString(tmp, content);
        Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    }
}
