package org.fraudpipe.tools.demo;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.ObjectOutputStream;
import java.io.Serializable;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.flink.api.common.JobExecutionResult;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.execution.SavepointFormatType;
import org.fraudpipe.job.KafkaFeatureJob;
import org.fraudpipe.job.cli.LocalSplit;
import org.fraudpipe.job.config.JobConfig;

/**
 * The demo's decision job, in a JVM of its own ({@link DecisionJobProcess} starts it): the job in
 * its own MiniCluster, with the demo's Flink settings ({@link Demo#flinkSettings}) on the REST port
 * it is given.
 *
 * <p>Arguments: {@code <rest port> <speedup> <control dir>}, then the job's options as {@code --key
 * value} pairs ({@link JobConfig#of}). Once the job is submitted its id is in {@code <control
 * dir>/job-id}. Then it obeys its standard input, one command a line: {@code stop <dir>} stops the
 * job with a drain and a savepoint into {@code dir} and writes {@code <control dir>/result.ser}
 * ({@link Result}: the savepoint and the job's final accumulators) before exiting 0; {@code
 * cancel}, or the end of the input (the demo is gone), cancels the job and exits. The job ending by
 * itself (it failed for good) exits 1. The JVM halts with the demo's in any case ({@link
 * LocalSplit#haltWithParent}).
 */
public final class DecisionJobMain {

    static final String JOB_ID_FILE = "job-id";
    static final String RESULT_FILE = "result.ser";
    static final String STOP = "stop ";
    static final String CANCEL = "cancel";

    /** What a stopped decision job leaves for the demo. */
    record Result(String savepoint, HashMap<String, Object> accumulators) implements Serializable {}

    private DecisionJobMain() {}

    public static void main(String[] args) throws Exception {
        LocalSplit.haltWithParent();
        org.fraudpipe.job.topology.JobEnvironment.initializeFileSystems();
        int restPort = Integer.parseInt(args[0]);
        double speedup = Double.parseDouble(args[1]);
        Path control = Path.of(args[2]);
        Map<String, String> options = new LinkedHashMap<>();
        for (int i = 3; i + 1 < args.length; i += 2) {
            options.put(args[i].substring(2), args[i + 1]);
        }
        JobClient job =
                KafkaFeatureJob.prepare(
                                JobConfig.of(options), Demo.flinkSettings(restPort, speedup))
                        .executeAsync();
        writeAtomically(control.resolve(JOB_ID_FILE), job.getJobID().toString().getBytes());
        job.getJobExecutionResult()
                .whenComplete(
                        (result, failure) -> {
                            // Only a failure ends the job without a command: say why and go.
                            if (failure != null) {
                                failure.printStackTrace();
                                Runtime.getRuntime().halt(1);
                            }
                        });
        BufferedReader in =
                new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        for (String line = in.readLine(); line != null; line = in.readLine()) {
            if (line.startsWith(STOP)) {
                String savepoint =
                        job.stopWithSavepoint(
                                        true,
                                        line.substring(STOP.length()),
                                        SavepointFormatType.CANONICAL)
                                .get();
                JobExecutionResult result = job.getJobExecutionResult().get();
                Result r = new Result(savepoint, new HashMap<>(result.getAllAccumulatorResults()));
                java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
                try (ObjectOutputStream o = new ObjectOutputStream(bytes)) {
                    o.writeObject(r);
                }
                writeAtomically(control.resolve(RESULT_FILE), bytes.toByteArray());
                System.exit(0);
            } else if (line.equals(CANCEL)) {
                break;
            }
        }
        job.cancel().get();
        System.exit(0);
    }

    /** Written whole or not at all: the demo polls for the file. */
    private static void writeAtomically(Path file, byte[] content) throws IOException {
        Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
        Files.write(tmp, content);
        Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE);
    }
}
