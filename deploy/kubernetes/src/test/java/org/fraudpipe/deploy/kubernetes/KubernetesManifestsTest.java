package org.fraudpipe.deploy.kubernetes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.fraudpipe.deploy.kubernetes.Manifests.at;

import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.batch.v1.CronJob;
import io.fabric8.kubernetes.api.model.batch.v1.JobSpec;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.runtime.jobmanager.HighAvailabilityMode;
import org.fraudpipe.job.cli.JobCommand;
import org.fraudpipe.job.cli.JobOptions;
import org.fraudpipe.job.config.JobConfig;
import org.fraudpipe.parity.cli.ParityCommand;
import org.fraudpipe.schemas.security.ClientProperties;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * Validates deploy/kubernetes/manifests without a cluster: what each check is and is not, README.md
 * ("What the validation checks"). Each kind of check also runs on a broken copy of a document and
 * must refuse it, so a validator that accepted anything would fail here.
 */
@SuppressWarnings("unchecked")
class KubernetesManifestsTest {

    static final String VERSION = System.getProperty("fraudpipe.version", "0.1.0-SNAPSHOT");
    static final String JOB_JAR = "feature-job-" + VERSION + "-job.jar";
    static final String PARITY_JAR = "batch-parity-" + VERSION + "-job.jar";
    static final String MAIN_CONTAINER = "flink-main-container";

    static List<Manifests.Doc> manifests;
    static List<Manifests.Doc> deployments;
    static FlinkDeploymentSchema schema;
    static FlinkConfigKeys flinkKeys;

    @TempDir Path tmp;

    @BeforeAll
    static void load() {
        manifests = Manifests.manifests();
        deployments = Manifests.ofKind(manifests, "FlinkDeployment");
        schema = new FlinkDeploymentSchema();
        flinkKeys = new FlinkConfigKeys();
    }

    // ---- FlinkDeployments: the operator's CRD schema ----

    @Test
    void theManifestsAreTheTwoJobsTheParityCronJobAndItsReportVolume() {
        assertThat(manifests)
                .extracting(d -> d.kind() + " " + d.name())
                .containsExactlyInAnyOrder(
                        "FlinkDeployment fraudpipe-windows",
                        "FlinkDeployment fraudpipe-decisions",
                        "PersistentVolumeClaim fraudpipe-parity-reports",
                        "CronJob fraudpipe-parity");
        assertThat(Manifests.ofKind(manifests, "Secret"))
                .as("no Secret under manifests/: examples/ only")
                .isEmpty();
    }

    @Test
    void everyFlinkDeploymentIsValidAgainstTheOperatorsCrdSchema() {
        assertThat(deployments).hasSize(2);
        for (Manifests.Doc d : deployments) {
            assertThat(schema.validate(d.content())).as(d.toString()).isEmpty();
        }
    }

    @Test
    void theCrdOnTheClassPathIsTheOperators110AndWeOnlyAddFlink2Versions() {
        assertThat(FlinkDeploymentSchema.crdLocation())
                .contains(
                        "/flink-kubernetes-operator-api-"
                                + System.getProperty("fraudpipe.operator-api.version")
                                + ".jar!/");
        assertThat(schema.publishedFlinkVersions())
                .contains("v1_20")
                .doesNotContainAnyElementsOf(FlinkDeploymentSchema.FLINK_2_VERSIONS);
        for (Manifests.Doc d : deployments) {
            assertThat((String) at(d.content(), "spec", "flinkVersion")).isEqualTo("v2_2");
        }
    }

    @Test
    void theSchemaRejectsMisspelledFieldsWrongTypesAndUnknownValues() {
        Manifests.Doc windows =
                Manifests.named(deployments, "FlinkDeployment", "fraudpipe-windows");

        assertThat(
                        problems(
                                windows,
                                d -> jobOf(d).put("upgradeMod", jobOf(d).remove("upgradeMode"))))
                .anySatisfy(p -> assertThat(p).contains("upgradeMod"));
        assertThat(problems(windows, d -> jobOf(d).put("parallelism", "two")))
                .anySatisfy(p -> assertThat(p).contains("/job/parallelism"));
        assertThat(problems(windows, d -> jobOf(d).put("upgradeMode", "last_state")))
                .anySatisfy(p -> assertThat(p).contains("/job/upgradeMode"));
        assertThat(problems(windows, d -> specOf(d).put("flinkVersion", "v2_9")))
                .anySatisfy(p -> assertThat(p).contains("/flinkVersion"));
        // Every flinkConfiguration value is a string in the CRD: an unquoted number is not.
        assertThat(problems(windows, d -> confOf(d).put("taskmanager.numberOfTaskSlots", 2)))
                .anySatisfy(p -> assertThat(p).contains("taskmanager.numberOfTaskSlots"));
        // Deep in the pod template (the Pod schema inside the CRD): a misspelled container field.
        assertThat(
                        problems(
                                windows,
                                d -> {
                                    Map<String, Object> c = mainContainer(d);
                                    c.put("volumeMount", c.remove("volumeMounts"));
                                }))
                .anySatisfy(p -> assertThat(p).contains("volumeMount"));
        assertThat(
                        problems(
                                windows,
                                d -> Manifests.map(d, "metadata").put("name", "Fraud_Windows")))
                .anySatisfy(p -> assertThat(p).contains("cluster id"));
    }

    // ---- FlinkDeployments: flinkConfiguration against Flink 2.2 ----

    @Test
    void flinkConfigurationHoldsOnlyFlink22KeysWithValidValues() {
        assertThat(flinkKeys.classCount()).as("Flink option classes found").isGreaterThan(30);
        for (Manifests.Doc d : deployments) {
            Map<String, Object> conf = at(d.content(), "spec", "flinkConfiguration");
            assertThat(flinkKeys.check(conf)).as(d.toString()).isEmpty();

            Configuration flink = Configuration.fromMap(stringMap(conf));
            assertThat(HighAvailabilityMode.fromConfig(flink))
                    .as("high availability through Kubernetes ConfigMaps")
                    .isEqualTo(HighAvailabilityMode.KUBERNETES);
            assertThat(conf.get("high-availability.storageDir").toString()).startsWith("s3p://");
            // The operator's savepoint upgrade mode needs both directories.
            assertThat(conf.get("execution.checkpointing.dir").toString()).startsWith("s3p://");
            assertThat(conf.get("execution.checkpointing.savepoint-dir").toString())
                    .startsWith("s3p://");
            assertThat((String) at(d.content(), "spec", "job", "upgradeMode"))
                    .isEqualTo("savepoint");
            // No secrets in Flink's configuration (it is in the CR, the REST API and the logs).
            assertThat(conf.keySet())
                    .noneMatch(k -> k.contains("secret") || k.contains("password"))
                    .noneMatch(k -> k.contains("access-key") || k.contains("access.key"));
        }
    }

    @Test
    void unknownDeprecatedOrUnparsableFlinkKeysAreRejected() {
        Map<String, Object> conf =
                at(
                        Manifests.named(deployments, "FlinkDeployment", "fraudpipe-windows").copy(),
                        "spec",
                        "flinkConfiguration");
        conf.put("state.checkpoint.dir", "s3p://BUCKET/x"); // a typo of the 1.x key
        conf.put("high-availability", "kubernetes"); // the 1.x key, deprecated in Flink 2.x
        conf.put("taskmanager.numberOfTaskSlots", "two");
        List<String> problems = flinkKeys.check(conf);
        assertThat(problems)
                .anySatisfy(
                        p -> assertThat(p).startsWith("state.checkpoint.dir is not a Flink 2.2"))
                .anySatisfy(
                        p ->
                                assertThat(p)
                                        .isEqualTo(
                                                "high-availability is deprecated in Flink 2.2:"
                                                        + " use high-availability.type"))
                .anySatisfy(p -> assertThat(p).startsWith("taskmanager.numberOfTaskSlots: 'two'"))
                .hasSize(3);
        // The 1.x names of the checkpoint and savepoint directories are deprecated in 2.2.
        assertThat(flinkKeys.replacementOf("state.checkpoints.dir"))
                .isEqualTo("execution.checkpointing.dir");
        assertThat(flinkKeys.replacementOf("state.savepoints.dir"))
                .isEqualTo("execution.checkpointing.savepoint-dir");
    }

    // ---- FlinkDeployments: the job's arguments, with the job's own parser ----

    @Test
    void theJobArgumentsParseWithTheJobsOwnOptionsAndAgreeWithTheDeployment() throws IOException {
        Map<String, JobConfig> byName = new java.util.TreeMap<>();
        for (Manifests.Doc d : deployments) {
            byName.put(d.name(), jobConfig(d.content()));

            JobConfig c = byName.get(d.name());
            Map<String, Object> conf = at(d.content(), "spec", "flinkConfiguration");
            assertThat(c.checkpointDir().toString())
                    .as("--checkpoint-dir is where the operator looks for checkpoints")
                    .isEqualTo(conf.get("execution.checkpointing.dir"));
            assertThat(c.parallelism())
                    .isEqualTo((Integer) at(d.content(), "spec", "job", "parallelism"));
            assertThat(c.archiveDir()).hasValueSatisfying(u -> assertThat(u).hasScheme("s3a"));
            assertThat(c.schemaRegistryUrl()).startsWith("https://");
            assertThat(c.kafkaClient().all()).containsEntry("security.protocol", "SASL_SSL");
            assertThat((String) at(d.content(), "spec", "job", "jarURI"))
                    .isEqualTo("local:///opt/flink/usrlib/" + JOB_JAR);
            assertThat((String) at(d.content(), "spec", "job", "entryClass"))
                    .isEqualTo(org.fraudpipe.job.FeatureJob.class.getName());
        }
        JobConfig windows = byName.get("fraudpipe-windows");
        JobConfig decisions = byName.get("fraudpipe-decisions");
        assertThat(windows.paths()).isEqualTo(JobConfig.Paths.WINDOWS);
        assertThat(decisions.paths()).isEqualTo(JobConfig.Paths.DECISIONS);
        assertThat(decisions.stateBackend()).isEqualTo(JobConfig.StateBackend.HASHMAP);
        assertThat(decisions.checkpointInterval()).hasSeconds(30);
        assertThat(windows.stateBackend()).isEqualTo(JobConfig.StateBackend.ROCKSDB);
        // docs/DEPLOY.md, "Two jobs": same topics, group id and archive; never the same
        // transactional ids.
        assertThat(windows.transactionalIdPrefix()).isNotEqualTo(decisions.transactionalIdPrefix());
        assertThat(windows.groupId()).isEqualTo(decisions.groupId());
        assertThat(windows.archiveDir()).isEqualTo(decisions.archiveDir());
        assertThat(windows.topics()).isEqualTo(decisions.topics());
    }

    @Test
    void badJobArgumentsAreRejectedByTheJobsParser() throws IOException {
        Manifests.Doc windows =
                Manifests.named(deployments, "FlinkDeployment", "fraudpipe-windows");

        Map<String, Object> wrongValue = windows.copy();
        List<Object> args = at(wrongValue, "spec", "job", "args");
        args.set(args.indexOf("windows"), "window");
        assertThatThrownBy(() -> jobConfig(wrongValue))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("--paths");

        Map<String, Object> wrongName = windows.copy();
        List<Object> args2 = at(wrongName, "spec", "job", "args");
        args2.set(args2.indexOf("--bootstrap-servers"), "--bootstrap-server");
        assertThatThrownBy(() -> jobConfig(wrongName))
                .isInstanceOf(CommandLine.ParameterException.class)
                .hasMessageContaining("--bootstrap-server");

        Map<String, Object> notMounted = windows.copy();
        List<Object> args3 = at(notMounted, "spec", "job", "args");
        args3.set(args3.indexOf("--kafka-config") + 1, "/etc/kafka/feature-job.properties");
        assertThatThrownBy(() -> jobConfig(notMounted))
                .isInstanceOf(AssertionError.class)
                .hasMessageContaining("not in a Secret mounted");
    }

    @Test
    void
            theKafkaClientSecretIsMountedOnJobManagerAndTaskManagersAndS3CredentialsComeFromTheEnvironment() {
        for (Manifests.Doc d : deployments) {
            Map<String, Object> spec = at(d.content(), "spec");
            // spec.podTemplate is the base of both the JobManager's and the TaskManagers' pods;
            // neither overrides it.
            assertThat(Manifests.map(spec, "jobManager")).doesNotContainKey("podTemplate");
            assertThat(Manifests.map(spec, "taskManager")).doesNotContainKey("podTemplate");
            Map<String, Object> container = mainContainer(d.content());
            assertThat(
                            mountedSecretFile(
                                    d.content(), "/etc/fraudpipe/kafka/feature-job.properties"))
                    .isEqualTo("fraudpipe-kafka-client");
            List<Object> envFrom = Manifests.list(container, "envFrom");
            assertThat(envFrom)
                    .containsExactly(Map.of("secretRef", Map.of("name", "fraudpipe-s3")));
        }
    }

    // ---- The Secrets' example ----

    @Test
    void theSecretExampleHoldsEveryKeyTheManifestsUseAndOnlyPlaceholders() throws IOException {
        List<Manifests.Doc> secrets = Manifests.ofKind(Manifests.examples(), "Secret");
        Manifests.Doc kafka = Manifests.named(secrets, "Secret", "fraudpipe-kafka-client");
        Manifests.Doc s3 = Manifests.named(secrets, "Secret", "fraudpipe-s3");

        Map<String, Object> s3Data = Manifests.map(s3.content(), "stringData");
        assertThat(s3Data).containsOnlyKeys("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY");
        assertThat(s3Data.values()).allMatch("REPLACE_ME"::equals);

        Map<String, Object> kafkaData = Manifests.map(kafka.content(), "stringData");
        Path file = tmp.resolve("feature-job.properties");
        Files.writeString(file, (String) kafkaData.get("feature-job.properties"));
        ClientProperties client = ClientProperties.load(file, "--kafka-config");
        assertThat(client.all()).isNotEmpty();
        client.all()
                .forEach(
                        (k, v) -> {
                            if (ClientProperties.isSecret(k)) {
                                assertThat(v).as(k).contains("REPLACE_ME");
                            }
                        });
        // The trust stores the file names are keys of the same Secret, so they are mounted beside
        // it.
        Set<String> keys = new HashSet<>(kafkaData.keySet());
        keys.addAll(Manifests.map(kafka.content(), "data").keySet());
        Manifests.map(kafka.content(), "data").values().forEach(v -> assertThat(v).isEqualTo(""));
        for (String location :
                List.of("ssl.truststore.location", "schema.registry.ssl.truststore.location")) {
            Path p = Path.of(client.all().get(location));
            assertThat(p.getParent()).hasToString("/etc/fraudpipe/kafka");
            assertThat(keys).contains(p.getFileName().toString());
        }
    }

    // ---- The parity CronJob ----

    @Test
    void theParityCronJobIsAStrictBatchV1CronJob() {
        Manifests.Doc doc = Manifests.named(manifests, "CronJob", "fraudpipe-parity");
        assertThat(CronJobChecks.validate(doc.content())).isEmpty();

        CronJob cron = CronJobChecks.read(doc.content());
        assertThat(cron.getSpec().getSchedule()).isEqualTo("30 2 * * *");
        assertThat(cron.getSpec().getTimeZone()).isEqualTo("Etc/UTC");
        assertThat(cron.getSpec().getConcurrencyPolicy()).isEqualTo("Forbid");
        JobSpec job = cron.getSpec().getJobTemplate().getSpec();
        // docs/PARITY.md: 1 skew -> do not retry; 2 missing input -> retry, then alert.
        assertThat(CronJobChecks.actionFor(job, "parity", 1)).isEqualTo("FailJob");
        assertThat(CronJobChecks.actionFor(job, "parity", 2)).isEqualTo("Count");
        assertThat(CronJobChecks.actionFor(job, "parity", 137)).isEqualTo("Count");
        assertThat(CronJobChecks.actionForCondition(job, "DisruptionTarget")).isEqualTo("Ignore");
        assertThat(job.getBackoffLimit()).isGreaterThanOrEqualTo(1);
        assertThat(job.getActiveDeadlineSeconds()).isPositive();
        assertThat(job.getTemplate().getSpec().getRestartPolicy()).isEqualTo("Never");

        // The client's Flink settings (FLINK_PROPERTIES, written into config.yaml by the image's
        // entrypoint, which drops all whitespace of a line): the FlinkDeployments' S3 settings.
        Map<String, Object> container =
                (Map<String, Object>) at(podSpec(doc.content()), "containers", 0);
        String properties = null;
        for (Object e : Manifests.list(container, "env")) {
            if ("FLINK_PROPERTIES".equals(((Map<String, Object>) e).get("name"))) {
                properties = (String) ((Map<String, Object>) e).get("value");
            }
        }
        assertThat(properties).isNotNull();
        Map<String, Object> clientConf = new java.util.LinkedHashMap<>();
        for (String line : properties.strip().split("\n")) {
            String[] kv = line.split(":\\s*", 2);
            assertThat(kv[1]).as(line).doesNotContainAnyWhitespaces();
            clientConf.put(kv[0].strip(), kv[1]);
        }
        assertThat(flinkKeys.check(clientConf)).isEmpty();
        Map<String, Object> windowsConf =
                at(
                        Manifests.named(deployments, "FlinkDeployment", "fraudpipe-windows")
                                .content(),
                        "spec",
                        "flinkConfiguration");
        clientConf.forEach((k, v) -> assertThat(windowsConf).containsEntry(k, v));
        assertThat(clientConf).containsOnlyKeys(FlinkConfigKeys.FILE_SYSTEM_KEYS);

        Manifests.Doc claim =
                Manifests.named(manifests, "PersistentVolumeClaim", "fraudpipe-parity-reports");
        assertThat(CronJobChecks.strict(claim.content(), PersistentVolumeClaim.class)).isEmpty();
        assertThat(
                        (String)
                                at(
                                        podSpec(doc.content()),
                                        "volumes",
                                        0,
                                        "persistentVolumeClaim",
                                        "claimName"))
                .isEqualTo(claim.name());
    }

    @Test
    void cronJobMistakesAreRejected() {
        Manifests.Doc doc = Manifests.named(manifests, "CronJob", "fraudpipe-parity");

        assertThat(
                        cronProblems(
                                doc,
                                d ->
                                        jobSpec(d)
                                                .put(
                                                        "backofLimit",
                                                        jobSpec(d).remove("backoffLimit"))))
                .anySatisfy(p -> assertThat(p).contains("unknown field(s) [backofLimit]"));
        assertThat(cronProblems(doc, d -> jobSpec(d).put("backoffLimit", "six")))
                .anySatisfy(p -> assertThat(p).contains("does not read"));
        assertThat(cronProblems(doc, d -> jobSpec(d).put("backoffLimit", "6")))
                .as("a string where Kubernetes wants an integer")
                .anySatisfy(p -> assertThat(p).contains("does not read"));
        assertThat(cronProblems(doc, d -> podSpec(d).put("restartPolicy", "OnFailure")))
                .anySatisfy(p -> assertThat(p).contains("requires restartPolicy Never"));
        assertThat(cronProblems(doc, d -> exitCodes(d, 0).put("values", List.of(2, 1))))
                .anySatisfy(p -> assertThat(p).contains("must be ordered"));
        assertThat(cronProblems(doc, d -> exitCodes(d, 0).put("containerName", "parityy")))
                .anySatisfy(p -> assertThat(p).contains("not a container"));
        assertThat(cronProblems(doc, d -> rule(d, 0).put("action", "Fail")))
                .anySatisfy(p -> assertThat(p).contains(".action must be one of"));
        assertThat(cronProblems(doc, d -> Manifests.map(d, "spec").put("timeZone", "Mars/Olympus")))
                .anySatisfy(p -> assertThat(p).contains("timeZone"));
        assertThat(
                        cronProblems(
                                doc,
                                d -> {
                                    Map<String, Object> c =
                                            (Map<String, Object>) at(podSpec(d), "containers", 0);
                                    c.put("agrs", c.remove("args"));
                                }))
                .anySatisfy(p -> assertThat(p).contains("unknown field(s) [agrs]"));

        // The mapping itself: exit 1 counted like a missing input would be retried 20 times.
        Map<String, Object> countsSkew = doc.copy();
        rule(countsSkew, 0).put("action", "Count");
        JobSpec job = CronJobChecks.read(countsSkew).getSpec().getJobTemplate().getSpec();
        assertThat(CronJobChecks.validate(countsSkew)).isEmpty();
        assertThat(CronJobChecks.actionFor(job, "parity", 1)).isNotEqualTo("FailJob");
    }

    @Test
    void theParityScriptPassesYesterdayAndItsArgumentsToFlinkRunAndKeepsTheExitCode()
            throws Exception {
        Manifests.Doc doc = Manifests.named(manifests, "CronJob", "fraudpipe-parity");
        Map<String, Object> container =
                (Map<String, Object>) at(podSpec(doc.content()), "containers", 0);
        assertThat(container).doesNotContainKey("command"); // the image's entrypoint stays
        List<String> args = strings(Manifests.list(container, "args"));
        assertThat(args.subList(0, 2)).containsExactly("bash", "-c");
        assertThat(args.get(3)).isEqualTo("parity"); // $0 of the script

        // A stand-in for Flink's CLI: prints its arguments and exits with STUB_EXIT.
        Path bin = Files.createDirectories(tmp.resolve("bin"));
        Path out = tmp.resolve("flink-args.txt");
        Path flink = bin.resolve("flink");
        Files.writeString(
                flink, "#!/bin/sh\nprintf '%s\\n' \"$@\" > \"$STUB_OUT\"\nexit \"$STUB_EXIT\"\n");
        assertThat(flink.toFile().setExecutable(true)).isTrue();

        for (int exit : new int[] {0, 1, 2}) {
            LocalDate before = LocalDate.now(ZoneOffset.UTC).minusDays(1);
            ProcessBuilder pb = new ProcessBuilder(args).redirectErrorStream(true);
            pb.environment().put("PATH", bin + ":/usr/bin:/bin");
            pb.environment().put("STUB_OUT", out.toString());
            pb.environment().put("STUB_EXIT", Integer.toString(exit));
            Process p = pb.start();
            String console = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertThat(p.waitFor()).as("exit code of the container, " + console).isEqualTo(exit);
            LocalDate after = LocalDate.now(ZoneOffset.UTC).minusDays(1);

            List<String> flinkArgs = Files.readAllLines(out);
            assertThat(flinkArgs.subList(0, 4))
                    .containsExactly("run", "--target", "local", "/opt/fraudpipe/" + PARITY_JAR);
            String day = flinkArgs.get(flinkArgs.indexOf("--date") + 1);
            assertThat(day).isIn(before.toString(), after.toString());
            assertThat(flinkArgs.get(flinkArgs.indexOf("--report") + 1))
                    .isEqualTo("/reports/" + day);

            // What flink run hands the jar's main: parsed by the parity command's own parser.
            List<String> parityArgs = flinkArgs.subList(4, flinkArgs.size());
            CommandLine.ParseResult parsed =
                    ParityCommand.commandLine().parseArgs(parityArgs.toArray(String[]::new));
            assertThat(parsed.matchedOptionValue("--archive", "")).startsWith("s3a://");
            assertThat(parsed.matchedOptionValue("--date", (LocalDate) null))
                    .isEqualTo(LocalDate.parse(day));
            assertThat(parsed.unmatched()).isEmpty();
        }
        assertThatThrownBy(
                        () ->
                                ParityCommand.commandLine()
                                        .parseArgs("--date", "2026-12-06", "--archiv", "s3a://b/a"))
                .isInstanceOf(CommandLine.ParameterException.class);
        // The report directory is the claim's mount.
        assertThat(mountPathOf(podSpec(doc.content()), "parity", "reports")).isEqualTo("/reports");
    }

    // ---- The image ----

    @Test
    void theDockerfileTheJarPathsAndThePluginsAgree() throws IOException {
        String dockerfile = Files.readString(Manifests.module().resolve("Dockerfile"));
        Matcher from =
                Pattern.compile("(?m)^FROM flink:(\\d+\\.\\d+\\.\\d+)-java17$").matcher(dockerfile);
        assertThat(from.find()).as("FROM flink:<version>-java17").isTrue();
        String flinkVersion = from.group(1);
        assertThat(flinkVersion).startsWith("2.2.");
        assertThat(dockerfile)
                .contains("dist/target/" + JOB_JAR + " /opt/flink/usrlib/")
                .contains("dist/target/" + PARITY_JAR + " /opt/fraudpipe/");
        String plugins =
                "flink-s3-fs-presto-"
                        + flinkVersion
                        + ".jar;flink-s3-fs-hadoop-"
                        + flinkVersion
                        + ".jar";
        List<Map<String, Object>> containers = new ArrayList<>();
        deployments.forEach(d -> containers.add(mainContainer(d.content())));
        containers.add(
                (Map<String, Object>)
                        at(
                                podSpec(
                                        Manifests.named(manifests, "CronJob", "fraudpipe-parity")
                                                .content()),
                                "containers",
                                0));
        for (Map<String, Object> c : containers) {
            assertThat(Manifests.list(c, "env"))
                    .contains(Map.of("name", "ENABLE_BUILT_IN_PLUGINS", "value", plugins));
        }
        List<String> images = new ArrayList<>();
        deployments.forEach(d -> images.add(at(d.content(), "spec", "image")));
        containers
                .subList(deployments.size(), containers.size())
                .forEach(c -> images.add((String) c.get("image")));
        assertThat(images).allMatch(i -> i.endsWith(":" + VERSION)).containsOnly(images.get(0));
    }

    // ---- helpers ----

    private static List<String> problems(Manifests.Doc doc, Consumer<Map<String, Object>> change) {
        Map<String, Object> copy = doc.copy();
        change.accept(copy);
        List<String> problems = schema.validate(copy);
        assertThat(problems).as("the changed copy must be refused").isNotEmpty();
        return problems;
    }

    private static List<String> cronProblems(
            Manifests.Doc doc, Consumer<Map<String, Object>> change) {
        Map<String, Object> copy = doc.copy();
        change.accept(copy);
        List<String> problems = CronJobChecks.validate(copy);
        assertThat(problems).as("the changed copy must be refused").isNotEmpty();
        return problems;
    }

    /**
     * The job's options as its main reads them in the JobManager: the FlinkDeployment's args, with
     * --kafka-config pointing at a copy of the example Secret's file (the path in the args must be
     * in a Secret volume the pod template mounts).
     */
    private JobConfig jobConfig(Map<String, Object> doc) throws IOException {
        List<String> args = strings(at(doc, "spec", "job", "args"));
        int i = args.indexOf("--kafka-config");
        assertThat(i).as("--kafka-config").isNotNegative();
        String secretName = mountedSecretFile(doc, args.get(i + 1));
        Manifests.Doc secret = Manifests.named(Manifests.examples(), "Secret", secretName);
        String fileName = Path.of(args.get(i + 1)).getFileName().toString();
        Path local = Files.createTempFile(tmp, "kafka", ".properties");
        Files.writeString(local, (String) at(secret.content(), "stringData", fileName));
        args.set(i + 1, local.toString());
        CommandLine.ParseResult parsed =
                JobCommand.commandLine().parseArgs(args.toArray(String[]::new));
        return JobOptions.read(parsed);
    }

    /**
     * The name of the Secret whose key {@code file}'s name is, mounted (read-only) at {@code
     * file}'s directory in the main container of the pod template.
     */
    private static String mountedSecretFile(Map<String, Object> doc, String file) {
        Map<String, Object> podSpec = at(doc, "spec", "podTemplate", "spec");
        Path path = Path.of(file);
        for (Object o :
                Manifests.list(Manifests.container(podSpec, MAIN_CONTAINER), "volumeMounts")) {
            Map<String, Object> mount = (Map<String, Object>) o;
            if (Path.of((String) mount.get("mountPath")).equals(path.getParent())
                    && Boolean.TRUE.equals(mount.get("readOnly"))) {
                for (Object v : Manifests.list(podSpec, "volumes")) {
                    Map<String, Object> volume = (Map<String, Object>) v;
                    if (volume.get("name").equals(mount.get("name"))
                            && volume.containsKey("secret")) {
                        return at(volume, "secret", "secretName");
                    }
                }
            }
        }
        throw new AssertionError(
                file + " is not in a Secret mounted read-only in " + MAIN_CONTAINER);
    }

    private static String mountPathOf(
            Map<String, Object> podSpec, String container, String volume) {
        for (Object o : Manifests.list(Manifests.container(podSpec, container), "volumeMounts")) {
            Map<String, Object> mount = (Map<String, Object>) o;
            if (volume.equals(mount.get("name"))) {
                return (String) mount.get("mountPath");
            }
        }
        throw new AssertionError("no mount of " + volume);
    }

    private static Map<String, Object> specOf(Map<String, Object> d) {
        return Manifests.map(d, "spec");
    }

    private static Map<String, Object> jobOf(Map<String, Object> d) {
        return Manifests.map(specOf(d), "job");
    }

    private static Map<String, Object> confOf(Map<String, Object> d) {
        return Manifests.map(specOf(d), "flinkConfiguration");
    }

    private static Map<String, Object> mainContainer(Map<String, Object> d) {
        return Manifests.container(at(d, "spec", "podTemplate", "spec"), MAIN_CONTAINER);
    }

    private static Map<String, Object> jobSpec(Map<String, Object> cron) {
        return at(cron, "spec", "jobTemplate", "spec");
    }

    private static Map<String, Object> podSpec(Map<String, Object> cron) {
        return at(jobSpec(cron), "template", "spec");
    }

    private static Map<String, Object> rule(Map<String, Object> cron, int index) {
        return at(jobSpec(cron), "podFailurePolicy", "rules", index);
    }

    private static Map<String, Object> exitCodes(Map<String, Object> cron, int ruleIndex) {
        return Manifests.map(rule(cron, ruleIndex), "onExitCodes");
    }

    private static List<String> strings(List<Object> values) {
        List<String> out = new ArrayList<>();
        values.forEach(v -> out.add(String.valueOf(v)));
        return out;
    }

    private static Map<String, String> stringMap(Map<String, Object> values) {
        Map<String, String> out = new java.util.LinkedHashMap<>();
        values.forEach((k, v) -> out.put(k, String.valueOf(v)));
        return out;
    }
}
