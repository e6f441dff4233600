package org.fraudpipe.tools.demo;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.fraudpipe.local.BrokerRuntime;
import org.fraudpipe.tools.FraudCli;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code ./fraud demo} end to end on small settings, run as the launcher runs it: a JVM of its own
 * on operator-tools' runtime classpath with the demo's log configuration. A real broker and schema
 * registry (their own JVMs), the job in a MiniCluster at parallelism 2 with RocksDB and
 * exactly-once sinks, traffic, progress, stop with savepoint and drain, parity over the archive;
 * and afterwards no broker, registry or demo JVM. Every wait is on a line of the demo's output or
 * on a process's exit, never a fixed sleep.
 */
class DemoIT {

    /** A progress line: every field the issue asks for, from the job's counters. */
    static final Pattern PROGRESS =
            Pattern.compile(
                    "\\d+:\\d\\d \\| sent (\\d+) \\| in (\\d+) \\(\\d+/s\\) \\| wm [^|]+ \\|"
                            + " windows (\\d+) \\| re-fires \\d+ \\| too late \\d+ \\| quarantined"
                            + " \\d+ \\| dead letters \\d+ \\| scores \\d+: allow \\d+, review"
                            + " \\d+, block \\d+ \\| tx scores \\d+: allow \\d+, review \\d+,"
                            + " block \\d+ \\| latency (-|p50 \\d+ ms, p99 \\d+ ms, p99.9 \\d+ ms)");

    static final Pattern FINAL =
            Pattern.compile(
                    "final \\| sent (\\d+) \\| in (\\d+) \\| wm end of time \\(drained\\) \\|"
                            + " windows (\\d+) \\| re-fires (\\d+) \\| too late \\d+ \\|"
                            + " quarantined (\\d+) \\| dead letters (\\d+) \\| scores (\\d+): .*"
                            + " \\| tx scores (\\d+): .* \\| latency p50 \\d+ ms, .*");

    /** The final summary of the per-transaction path. */
    static final Pattern TX_SUMMARY =
            Pattern.compile(
                    "  scores at arrival: (\\d+) transactions scored \\(allow \\d+, review \\d+,"
                            + " block \\d+\\); from the Kafka timestamp to the sink p50 \\d+ ms,"
                            + " p99 \\d+ ms, p99.9 \\d+ ms, max \\d+ ms over (\\d+) scores");

    /** The parity summary's two sections: the windows, and the transactions scored at arrival. */
    static final Pattern PARITY_SECTIONS =
            Pattern.compile(
                    "parity PASS [^:]+: (\\d+) windows, (\\d+) match, .*; transactions: (\\d+)"
                            + " judged, (\\d+) match, (\\d+) explained[^,]*, (\\d+) unexplained;"
                            + " transaction scores: (\\d+) compared, .*");

    static final Pattern PIDS =
            Pattern.compile(
                    "Kafka localhost:\\d+ \\(pid (\\d+)\\), schema registry .* \\(pid (\\d+)\\)");

    /** The decision job's line: its id, its JVM and its own Flink REST API. */
    static final Pattern DECISION_JOB =
            Pattern.compile(
                    "  decision job ([0-9a-f]{32}) running in its own JVM \\(pid (\\d+);.* its"
                            + " Flink: (http://localhost:\\d+/), its log: .*");

    @TempDir Path dir;

    private DemoProcess demo;

    @AfterEach
    void killWhatATestLeft() {
        if (demo != null) {
            demo.killAll();
            // The demo's console, for the test report (target/failsafe-reports/*-output.txt).
            System.out.println(demo.output());
        }
    }

    @Test
    void theDemoRunsTheJobOverKafkaChecksParityAndLeavesNothingRunning() throws Exception {
        Path run = dir.resolve("run");
        demo =
                DemoProcess.start(
                        run,
                        "--users 40 --tx-per-user-day 1500 --duration 10s --speedup 120"
                                + " --window-size 1m --allowed-lateness 30m --parallelism 2"
                                + " --checkpoint-interval 2s");

        demo.await(l -> DECISION_JOB.matcher(l).matches(), Duration.ofSeconds(120));
        Set<Long> started = demo.descendants();
        assertThat(started)
                .as("the decision job runs in a JVM of the demo's own (issue #29)")
                .contains(Long.parseLong(demo.match(DECISION_JOB).group(2)));
        int exit = demo.awaitExit(Duration.ofSeconds(150));

        assertThat(exit).as("exit code; output:%n%s", demo.output()).isZero();
        List<String> progress = demo.lines(l -> PROGRESS.matcher(l).matches());
        assertThat(progress).as("progress lines; output:%n%s", demo.output()).isNotEmpty();

        Matcher fin = demo.match(FINAL);
        long sent = Long.parseLong(fin.group(1));
        long in = Long.parseLong(fin.group(2));
        long windows = Long.parseLong(fin.group(3));
        long refires = Long.parseLong(fin.group(4));
        long quarantined = Long.parseLong(fin.group(5));
        long deadLetters = Long.parseLong(fin.group(6));
        long scores = Long.parseLong(fin.group(7));
        long txScores = Long.parseLong(fin.group(8));
        assertThat(sent).as("records published").isPositive();
        assertThat(in).as("the job read every record published").isEqualTo(sent);
        assertThat(windows).as("windows fired").isPositive();
        assertThat(scores).as("every pane scored").isEqualTo(windows + refires);
        assertThat(txScores)
                .as("every valid, not future-dated record scored at arrival, retries again")
                .isEqualTo(in - quarantined - deadLetters);
        Matcher tx = demo.match(TX_SUMMARY);
        assertThat(Long.parseLong(tx.group(1))).isEqualTo(txScores);
        assertThat(Long.parseLong(tx.group(2))).as("every score timed").isEqualTo(txScores);

        assertThat(demo.output())
                // the drain waited for both readers of the topic (issue #28)
                .contains("both readers (windows, decisions) have read every record published")
                .doesNotContain("had not read everything published")
                .contains("parity PASS")
                .contains("parity exit code 0 (within thresholds)")
                .contains("report: " + run.resolve("parity").resolve("report.html"));
        assertThat(run.resolve("parity").resolve("report.json")).isRegularFile();
        // Both sections: the windows, and every transaction scored at arrival, judged.
        Matcher sections = demo.match(PARITY_SECTIONS);
        long windowsJudged = Long.parseLong(sections.group(1));
        long txJudged = Long.parseLong(sections.group(3));
        long txMatched = Long.parseLong(sections.group(4));
        long txExplained = Long.parseLong(sections.group(5));
        long txAlarms = Long.parseLong(sections.group(6));
        long txCompared = Long.parseLong(sections.group(7));
        assertThat(windowsJudged).as("windows judged").isPositive();
        assertThat(txJudged).as("transactions judged").isPositive().isLessThanOrEqualTo(in);
        assertThat(txMatched + txExplained + txAlarms).isEqualTo(txJudged);
        assertThat(txAlarms).as("transaction alarms at exit 0").isZero();
        assertThat(txCompared).as("every scored transaction re-scored").isEqualTo(txJudged);
        // The advice for the run, over the traffic it published, linked from the parity report.
        assertThat(demo.output())
                .containsPattern("  advise (TARGETS_MET|NO_PAIR_MEETS_TARGETS): ")
                .contains("advice: " + run.resolve("parity").resolve("advice.html"));
        assertThat(run.resolve("parity").resolve("advice.json")).isRegularFile();
        assertThat(Files.readString(run.resolve("parity").resolve("report.html")))
                .contains("<a href=\"advice.html\">");
        assertThat(Files.readString(run.resolve("parity").resolve("advice.json")))
                .contains("\"current\" : true")
                .contains("\"windowSize\" : \"1m\"");
        assertThat(committedFiles(run.resolve("archive").resolve("features")))
                .as("features archived and committed on the final savepoint")
                .isNotEmpty();
        assertThat(demo.output()).contains("Nothing left running");

        Matcher pids = demo.match(PIDS);
        assertNothingAlive(started, pids);
    }

    /**
     * Issue #18: {@code ./fraud demo --secure} runs the same pipeline on the secured runtime (TLS,
     * SCRAM, ACLs; the registry over HTTPS with basic auth), and none of the passwords generated
     * for it appears in anything the run leaves or shows: the console, every file of the run
     * directory (demo.log with Flink's and the Kafka clients' logs, the archive, the savepoint, the
     * parity report, the advice), and Flink's configuration as its REST API (the web UI) returns it
     * while the job runs.
     */
    @Test
    void theSecuredDemoRunsEndToEndAndNoGeneratedPasswordShowsAnywhere() throws Exception {
        Path run = dir.resolve("run");
        demo =
                DemoProcess.start(
                        run,
                        "--secure --object-store --users 30 --tx-per-user-day 1500 --duration 10s"
                                + " --speedup 120 --window-size 1m --allowed-lateness 30m"
                                + " --parallelism 2 --checkpoint-interval 2s");
        String ui =
                demo.await(
                        l -> l.contains("Flink web UI: http://localhost:"),
                        Duration.ofSeconds(150));
        Matcher decisionJob =
                DECISION_JOB.matcher(
                        demo.await(l -> DECISION_JOB.matcher(l).matches(), Duration.ofSeconds(10)));
        assertThat(decisionJob.matches()).isTrue();
        // The passwords of this run, read while they exist (the Kafka directory goes at the end).
        Path secretsFile = run.resolve("kafka").resolve("security").resolve("secrets.properties");
        java.util.Properties secrets = new java.util.Properties();
        try (var in = Files.newBufferedReader(secretsFile)) {
            secrets.load(in);
        }
        List<String> passwords = new ArrayList<>();
        secrets.stringPropertyNames().forEach(k -> passwords.add(secrets.getProperty(k)));
        assertThat(passwords)
                .hasSizeGreaterThanOrEqualTo(9)
                .allSatisfy(p -> assertThat(p).hasSizeGreaterThan(12));
        String base = ui.substring(ui.indexOf("http://")).trim();
        String jobId = demo.match(Pattern.compile("window job ([0-9a-f]{32}) running")).group(1);
        StringBuilder rest = new StringBuilder();
        // Both jobs' Flink: the window job's in the demo's JVM, the decision job's in its own.
        for (Map.Entry<String, String> job :
                Map.of(base, jobId, decisionJob.group(3), decisionJob.group(1)).entrySet()) {
            for (String path :
                    List.of(
                            "jobmanager/config",
                            "jobs/" + job.getValue() + "/config",
                            "jobs/" + job.getValue() + "/jobmanager/config",
                            "jobs/" + job.getValue())) {
                java.net.http.HttpResponse<String> answer =
                        java.net.http.HttpClient.newHttpClient()
                                .send(
                                        java.net.http.HttpRequest.newBuilder(
                                                        java.net.URI.create(job.getKey() + path))
                                                .build(),
                                        java.net.http.HttpResponse.BodyHandlers.ofString());
                assertThat(answer.statusCode()).as("GET %s%s", job.getKey(), path).isEqualTo(200);
                rest.append(answer.body()).append('\n');
            }
        }
        assertThat(rest.toString())
                .as("the REST answers")
                .contains(jobId)
                .contains(decisionJob.group(1))
                .contains("parallelism");

        int exit = demo.awaitExit(Duration.ofSeconds(180));
        assertThat(exit).as("exit code; output:%n%s", demo.output()).isZero();
        assertThat(demo.output())
                .contains("secured: SASL_SSL")
                .contains("feature-job.properties")
                .contains("both readers (windows, decisions) have read every record published")
                .contains("parity PASS")
                .contains("Nothing left running")
                .contains("object store http://localhost:")
                .contains("archive s3a://fraudpipe/archive")
                .contains("Kept in " + run + ": s3/");
        Matcher fin = demo.match(FINAL);
        assertThat(Long.parseLong(fin.group(1))).as("records published").isPositive();
        assertThat(fin.group(2)).as("the job read every record published").isEqualTo(fin.group(1));

        List<Path> files;
        try (Stream<Path> walk = Files.walk(run)) {
            files = walk.filter(Files::isRegularFile).toList();
        }
        assertThat(files)
                .as("what the run leaves")
                .anyMatch(f -> f.getFileName().toString().equals("demo.log"))
                .anyMatch(f -> f.getFileName().toString().equals("report.json"))
                .anyMatch(f -> f.toString().contains("archive"));
        // --object-store: both jobs' checkpoints and savepoints and the archive in the store.
        Path bucket = run.resolve("s3").resolve("objects").resolve("fraudpipe");
        assertThat(bucket.resolve("archive").resolve("transactions")).isDirectory();
        assertThat(bucket.resolve("savepoints")).isDirectory();
        String storeSecret =
                org.fraudpipe.local.LocalObjectStore.credentials(run.resolve("s3")).secretKey();
        passwords.add(storeSecret);
        // The three files that hold the store's key by design: its own, S3Proxy's, Flink's.
        List<String> keyFiles =
                List.of(
                        org.fraudpipe.local.LocalObjectStore.CREDENTIALS_FILE,
                        "s3proxy.properties",
                        "config.yaml");
        files = files.stream().filter(f -> !keyFiles.contains(f.getFileName().toString())).toList();
        for (String password : passwords) {
            assertThat(demo.output()).as("the console").doesNotContain(password);
            assertThat(rest.toString()).as("Flink's REST API").doesNotContain(password);
            for (Path f : files) {
                // Bytes as Latin-1: a password (ASCII) shows in binary files (Avro, savepoint) too.
                assertThat(new String(Files.readAllBytes(f), StandardCharsets.ISO_8859_1))
                        .as("%s", f)
                        .doesNotContain(password);
            }
        }
    }

    /**
     * Stopped from outside (kill, a scheduler, CI): SIGTERM, which the demo's JVM always receives.
     * The shutdown hook cancels the job (no savepoint, no drain, no parity: there is no time for
     * them), stops the broker and the registry, says so, and the JVM exits with 143 (128 +
     * SIGTERM).
     */
    @Test
    void sigtermCancelsTheJobAndStopsKafkaAndTheRegistry() throws Exception {
        demo = DemoProcess.start(dir.resolve("run"), "--users 20 --duration 10m --parallelism 2");
        awaitRecordsInTheJob();
        Set<Long> started = demo.descendants();
        demo.terminate();
        int exit = demo.awaitExit(Duration.ofSeconds(60));

        assertThat(exit).as("SIGTERM exit code; output:%n%s", demo.output()).isEqualTo(143);
        assertStoppedCleanly(started);
    }

    /**
     * Ctrl-C: SIGINT, the same shutdown as SIGTERM, exit code 130. Only when the demo's JVM can
     * receive it: a JVM started with SIGINT ignored (a command started with {@code &} from a
     * non-interactive script, some CI and cron setups) keeps it ignored and installs no handler, so
     * SIGINT would test how this test was launched, not the demo. Skipped then (SIGTERM above is
     * tested in any case).
     */
    @Test
    void ctrlCCancelsTheJobAndStopsKafkaAndTheRegistry() throws Exception {
        demo = DemoProcess.start(dir.resolve("run"), "--users 20 --duration 10m --parallelism 2");
        demo.await(l -> l.startsWith("fraudpipe demo:"), Duration.ofSeconds(60));
        boolean handled = demo.handlesSignal(SIGINT);
        if (!handled) {
            demo.killAll();
        }
        Assumptions.assumeTrue(
                handled, "SIGINT is ignored in this environment: the demo's JVM cannot handle it");
        awaitRecordsInTheJob();
        Set<Long> started = demo.descendants();
        demo.signal("INT");
        int exit = demo.awaitExit(Duration.ofSeconds(60));

        assertThat(exit).as("SIGINT exit code; output:%n%s", demo.output()).isEqualTo(130);
        assertStoppedCleanly(started);
    }

    private static final int SIGINT = 2;

    /** Records flow through the job: a stop in the middle of its work. */
    private void awaitRecordsInTheJob() throws InterruptedException {
        demo.await(
                l -> {
                    Matcher m = PROGRESS.matcher(l);
                    return m.matches() && Long.parseLong(m.group(2)) > 0;
                },
                Duration.ofSeconds(120));
    }

    private void assertStoppedCleanly(Set<Long> started) {
        assertThat(demo.output())
                .contains(
                        "Interrupted: cancelling both jobs, stopping Kafka and the schema registry")
                .contains("Stopped; nothing left running")
                .doesNotContain("demo failed")
                .doesNotContain("parity exit code");
        assertThat(demo.output())
                .as("the hook has the last word")
                .endsWith("Stopped; nothing left running. Run directory: " + dir.resolve("run"));
        assertNothingAlive(started, demo.match(PIDS));
    }

    private void assertNothingAlive(Set<Long> started, Matcher pids) {
        Set<Long> expected = new TreeSet<>(started);
        long broker = Long.parseLong(pids.group(1));
        long registry = Long.parseLong(pids.group(2));
        assertThat(started)
                .as("the broker and the registry are the demo's child processes")
                .contains(broker, registry);
        expected.add(demo.pid());
        for (long pid : expected) {
            assertThat(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false))
                    .as(
                            "process %d (demo %d, broker %d, registry %d) is gone",
                            pid, demo.pid(), broker, registry)
                    .isFalse();
        }
    }

    private static List<Path> committedFiles(Path streamDir) throws IOException {
        try (Stream<Path> all = Files.walk(streamDir)) {
            return all.filter(Files::isRegularFile)
                    .filter(p -> p.getFileName().toString().startsWith("part-"))
                    .toList();
        }
    }

    /** The demo's JVM, its output line by line, and the processes it started. */
    static final class DemoProcess {
        private final Process process;
        private final List<String> lines = new ArrayList<>();
        // Handles, not pids: a handle carries its process's start time, so destroying it can never
        // hit another process that reused the pid.
        private final List<ProcessHandle> descendants = new ArrayList<>();

        private DemoProcess(Process process) {
            this.process = process;
            Thread reader =
                    new Thread(
                            () -> {
                                try (BufferedReader r =
                                        new BufferedReader(
                                                new InputStreamReader(
                                                        process.getInputStream(),
                                                        StandardCharsets.UTF_8))) {
                                    String line;
                                    while ((line = r.readLine()) != null) {
                                        synchronized (lines) {
                                            lines.add(line);
                                            lines.notifyAll();
                                        }
                                    }
                                } catch (IOException closed) {
                                    // the process ended
                                }
                                synchronized (lines) {
                                    lines.add(null);
                                    lines.notifyAll();
                                }
                            },
                            "demo-output");
            reader.setDaemon(true);
            reader.start();
        }

        /** {@code java ... FraudCli demo --dir RUN ARGS}, as ./fraud demo runs it. */
        static DemoProcess start(Path runDir, String args) throws IOException {
            Path module = Path.of(System.getProperty("user.dir"));
            Path root = module.getParent();
            String classpath =
                    module.resolve("target/classes")
                            + java.io.File.pathSeparator
                            + Files.readString(module.resolve("target/runtime.classpath")).trim();
            List<String> command = new ArrayList<>();
            command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
            command.add("@" + root.resolve(".mvn/flink-jvm.options"));
            command.add("-Xmx1g");
            command.add(
                    "-D"
                            + BrokerRuntime.HOME_PROPERTY
                            + "="
                            + System.getProperty(BrokerRuntime.HOME_PROPERTY));
            command.add(
                    "-D"
                            + org.fraudpipe.local.LocalObjectStore.HOME_PROPERTY
                            + "="
                            + System.getProperty(
                                    org.fraudpipe.local.LocalObjectStore.HOME_PROPERTY));
            command.add(
                    "-Dlog4j2.configurationFile="
                            + module.resolve("src/main/resources/log4j2-demo.xml"));
            command.add("-cp");
            command.add(classpath);
            command.add(FraudCli.class.getName());
            command.add("demo");
            command.add("--dir");
            command.add(runDir.toString());
            command.addAll(List.of(args.split(" ")));
            return new DemoProcess(
                    new ProcessBuilder(command)
                            .redirectErrorStream(true)
                            .redirectInput(
                                    ProcessBuilder.Redirect.from(new java.io.File("/dev/null")))
                            .start());
        }

        long pid() {
            return process.pid();
        }

        /**
         * Waits for a line matching {@code condition}; fails with the output on timeout or exit.
         */
        String await(Predicate<String> condition, Duration timeout) throws InterruptedException {
            long deadline = System.nanoTime() + timeout.toNanos();
            synchronized (lines) {
                int seen = 0;
                while (true) {
                    while (seen < lines.size()) {
                        String l = lines.get(seen++);
                        if (l == null) {
                            throw new AssertionError(
                                    "the demo ended before the expected line; output:\n"
                                            + output());
                        }
                        if (condition.test(l)) {
                            return l;
                        }
                    }
                    long left = deadline - System.nanoTime();
                    if (left <= 0) {
                        throw new AssertionError(
                                "no expected line within " + timeout + "; output:\n" + output());
                    }
                    lines.wait(TimeUnit.NANOSECONDS.toMillis(left) + 1);
                }
            }
        }

        /** The pids of the processes the demo started that are alive now (broker, registry). */
        Set<Long> descendants() {
            Set<Long> pids = new TreeSet<>();
            process.descendants()
                    .forEach(
                            p -> {
                                descendants.add(p);
                                pids.add(p.pid());
                            });
            return pids;
        }

        /**
         * SIGTERM, through the process's handle: {@link Process#destroy()} sends the same signal
         * but also closes this side of the demo's pipes, so what the demo says then would be lost.
         */
        void terminate() {
            assertThat(process.toHandle().destroy()).as("SIGTERM sent").isTrue();
        }

        /**
         * Whether the demo's JVM has a handler for {@code signal} (its bit in {@code SigCgt} of
         * {@code /proc/PID/status}); false if it ignores it, as a JVM does with a signal ignored at
         * its launch.
         */
        boolean handlesSignal(int signal) throws IOException {
            for (String line : Files.readAllLines(Path.of("/proc/" + process.pid() + "/status"))) {
                if (line.startsWith("SigCgt:")) {
                    long caught = Long.parseUnsignedLong(line.substring(7).strip(), 16);
                    return (caught & (1L << (signal - 1))) != 0;
                }
            }
            throw new AssertionError("no SigCgt in /proc/" + process.pid() + "/status");
        }

        void signal(String signal) throws Exception {
            Process kill =
                    new ProcessBuilder("kill", "-" + signal, Long.toString(process.pid()))
                            .inheritIO()
                            .start();
            assertThat(kill.waitFor()).as("kill -%s exit code", signal).isZero();
        }

        int awaitExit(Duration timeout) throws InterruptedException {
            if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                throw new AssertionError(
                        "the demo did not end within " + timeout + "; output:\n" + output());
            }
            // Until the end of its output, so that every line is there.
            synchronized (lines) {
                while (lines.isEmpty() || lines.get(lines.size() - 1) != null) {
                    lines.wait(1000);
                }
            }
            return process.exitValue();
        }

        List<String> lines(Predicate<String> filter) {
            synchronized (lines) {
                return lines.stream().filter(l -> l != null && filter.test(l)).toList();
            }
        }

        Matcher match(Pattern pattern) {
            for (String l : lines(l -> true)) {
                Matcher m = pattern.matcher(l);
                if (m.find()) {
                    return m;
                }
            }
            throw new AssertionError("no line matches " + pattern + "; output:\n" + output());
        }

        String output() {
            return String.join("\n", lines(l -> true));
        }

        /** After a failed test: nothing of ours may outlive it. */
        void killAll() {
            descendants();
            process.destroyForcibly();
            descendants.forEach(ProcessHandle::destroyForcibly);
        }
    }
}
