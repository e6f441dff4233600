package org.fraudpipe.job.cli;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import org.fraudpipe.job.FeatureJob;
import org.fraudpipe.job.config.JobConfig;
import org.fraudpipe.job.config.JobOption;
import picocli.CommandLine;

/**
 * {@code ./fraud job --split}: both paths as two jobs on this machine, as the split deployment runs
 * them on a cluster (docs/DEPLOY.md, "Two jobs"). The decision job ({@code --paths decisions}) runs
 * in a JVM of its own, a child of this one, started with this JVM's Java, classpath and JVM options
 * and the same job options, except its own: the heap state backend, checkpoints every {@value
 * #DECISION_CHECKPOINT_INTERVAL}, transactional ids {@code <prefix>-decisions}. The window job
 * ({@code --paths windows}) runs here, its threads at nice {@value #WINDOWS_NICE}, so that the
 * kernel gives the decision job the cores first, as a cluster gives it TaskManagers of its own.
 *
 * <p>Invariants: the child never outlives this JVM (it halts when this process is gone: {@link
 * #PARENT_PID}); when either job ends, the other is stopped too; the two jobs never share
 * transactional ids.
 */
public final class LocalSplit {

    /** The system property naming the process a decision job's JVM halts with. */
    static final String PARENT_PID = "fraud.parent.pid";

    /** The decision job's checkpoint interval: its state is small, on the heap. */
    public static final String DECISION_CHECKPOINT_INTERVAL = "30s";

    /** The window job's nice value by default ({@code --split-windows-nice}). */
    public static final int WINDOWS_NICE = 10;

    /**
     * JVM options of the decision job's JVM, after this one's: a short G1 pause goal. Its state
     * lives on the heap, and at G1's default goal (200 ms) young collections paused it for 100-200
     * ms; a 10 ms goal cut its p99 and p99.9 by 40-60 % in three balanced pairs
     * (docs/BENCHMARKS.md).
     */
    public static final List<String> DECISION_JVM_OPTIONS = List.of("-XX:MaxGCPauseMillis=10");

    /**
     * The options the decision job sets for itself; given ones are left out of its command line.
     */
    static final Set<String> DECISION_OWN =
            Set.of(
                    JobOption.PATHS.flag(),
                    JobOption.TRANSACTIONAL_ID_PREFIX.flag(),
                    JobOption.STATE_BACKEND.flag(),
                    JobOption.CHECKPOINT_INTERVAL.flag());

    private LocalSplit() {}

    /** The window job's overrides of the given options. */
    public static Map<String, String> windowOverrides() {
        return Map.of(JobOption.PATHS.key(), JobConfig.Paths.WINDOWS.name().toLowerCase());
    }

    /** The decision job's overrides of the given options, with {@code config}'s prefix. */
    public static Map<String, String> decisionOverrides(JobConfig config) {
        Map<String, String> m = new LinkedHashMap<>();
        m.put(JobOption.PATHS.key(), JobConfig.Paths.DECISIONS.name().toLowerCase());
        m.put(
                JobOption.TRANSACTIONAL_ID_PREFIX.key(),
                config.transactionalIdPrefix() + "-decisions");
        m.put(JobOption.STATE_BACKEND.key(), "hashmap");
        m.put(JobOption.CHECKPOINT_INTERVAL.key(), DECISION_CHECKPOINT_INTERVAL);
        return m;
    }

    /**
     * This command's options as given ({@code --name=value}, one per value; a flag as {@code
     * --name}), in the order parsed.
     */
    static List<String> given(CommandLine.ParseResult parsed) {
        List<String> out = new ArrayList<>();
        for (CommandLine.Model.OptionSpec o : parsed.matchedOptions()) {
            if (o.arity().max() == 0) {
                out.add(o.longestName());
            } else {
                for (String v : o.originalStringValues()) {
                    out.add(o.longestName() + "=" + v);
                }
            }
        }
        return out;
    }

    /**
     * The decision job's command line: {@code given} ({@link #given}) without {@code --split} and
     * without the options it sets itself, then those ({@code overrides}, by job option key).
     */
    static List<String> decisionArguments(List<String> given, Map<String, String> overrides) {
        List<String> out = new ArrayList<>();
        for (String a : given) {
            String name = a.contains("=") ? a.substring(0, a.indexOf('=')) : a;
            if (!JobCommand.SPLIT_OPTIONS.contains(name) && !DECISION_OWN.contains(name)) {
                out.add(a);
            }
        }
        overrides.forEach(
                (k, v) -> {
                    out.add("--" + k);
                    out.add(v);
                });
        return out;
    }

    /** Starts the decision job's JVM with {@code arguments}; its output goes to this one's. */
    static Process startDecisionJvm(List<String> arguments) throws IOException {
        return decisionJvm(FeatureJob.class.getName(), List.of(), arguments).inheritIO().start();
    }

    /**
     * A decision job's JVM, not yet started: this JVM's Java, classpath and JVM options (without a
     * debugger's), then {@link #DECISION_JVM_OPTIONS} and {@code jvmOptions} (the last of two
     * settings wins), tied to this JVM ({@link #haltWithParent}), running {@code mainClass} with
     * {@code arguments}. The caller decides where its input and output go.
     */
    public static ProcessBuilder decisionJvm(
            String mainClass, List<String> jvmOptions, List<String> arguments) {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        for (String option : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
            if (!option.startsWith("-D" + PARENT_PID + "=")
                    && !option.startsWith("-agentlib:jdwp")) {
                command.add(option);
            }
        }
        command.addAll(DECISION_JVM_OPTIONS);
        command.addAll(jvmOptions);
        command.add("-D" + PARENT_PID + "=" + ProcessHandle.current().pid());
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(mainClass);
        command.addAll(arguments);
        return new ProcessBuilder(command);
    }

    /**
     * Gives every thread of this JVM the nice value {@code nice} (Linux schedules threads, and a
     * thread started later inherits its starter's). Returns null when done, else why it could not
     * be (no {@code renice}, another OS).
     */
    public static String reniceThisJvm(int nice) {
        Path tasks = Path.of("/proc/self/task");
        if (!Files.isDirectory(tasks)) {
            return "no /proc/self/task (not Linux)";
        }
        List<String> command = new ArrayList<>(List.of("renice", "-n", Integer.toString(nice)));
        command.add("-p");
        try (Stream<Path> s = Files.list(tasks)) {
            s.forEach(t -> command.add(t.getFileName().toString()));
            Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes());
            return p.waitFor() == 0 ? null : "renice failed: " + out.strip();
        } catch (IOException e) {
            return "renice not run: " + e.getMessage();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "interrupted";
        }
    }

    /**
     * In a decision job's JVM started by {@link #startDecisionJvm}: halts this JVM when the process
     * that started it is gone, even after a {@code kill -9} of it, so no job outlives its command.
     */
    public static void haltWithParent() {
        String pid = System.getProperty(PARENT_PID);
        if (pid == null || pid.isBlank()) {
            return;
        }
        ProcessHandle.of(Long.parseLong(pid.trim()))
                .ifPresentOrElse(
                        parent -> parent.onExit().thenRun(() -> Runtime.getRuntime().halt(3)),
                        () -> Runtime.getRuntime().halt(3));
    }
}
