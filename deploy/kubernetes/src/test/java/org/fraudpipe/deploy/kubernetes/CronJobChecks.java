package org.fraudpipe.deploy.kubernetes;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeMount;
import io.fabric8.kubernetes.api.model.batch.v1.CronJob;
import io.fabric8.kubernetes.api.model.batch.v1.CronJobSpec;
import io.fabric8.kubernetes.api.model.batch.v1.JobSpec;
import io.fabric8.kubernetes.api.model.batch.v1.PodFailurePolicy;
import io.fabric8.kubernetes.api.model.batch.v1.PodFailurePolicyOnExitCodesRequirement;
import io.fabric8.kubernetes.api.model.batch.v1.PodFailurePolicyOnPodConditionsPattern;
import io.fabric8.kubernetes.api.model.batch.v1.PodFailurePolicyRule;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.time.DateTimeException;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.MapperFeature;
import tools.jackson.databind.json.JsonMapper;

/**
 * A batch/v1 CronJob checked as strictly as this build can without a cluster: read into the fabric8
 * Kubernetes model (generated from Kubernetes' OpenAPI spec), where a wrong type fails the read and
 * a field the model does not know lands in an {@code additionalProperties} map, which must stay
 * empty everywhere; then the API server's batch/v1 rules the model cannot express and this CronJob
 * relies on (pkg/apis/batch/validation, as documented for the fields: schedule, timeZone,
 * concurrencyPolicy, restartPolicy Never with a podFailurePolicy, the rules' actions, operators,
 * ordered values without 0 for In, container names, volumes).
 */
final class CronJobChecks {

    static final JsonMapper STRICT =
            JsonMapper.builder()
                    .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
                    .disable(MapperFeature.ALLOW_COERCION_OF_SCALARS)
                    .build();

    private static final Set<String> ACTIONS = Set.of("FailJob", "FailIndex", "Ignore", "Count");
    private static final Set<String> CONCURRENCY = Set.of("Allow", "Forbid", "Replace");

    private CronJobChecks() {}

    /** The document as a fabric8 CronJob, or an exception naming what does not fit the model. */
    static CronJob read(Map<String, Object> doc) {
        return STRICT.convertValue(doc, CronJob.class);
    }

    /**
     * What does not fit the fabric8 model of {@code type} in {@code doc}: a value of the wrong type
     * (the read fails) or fields the model does not know; empty if nothing.
     */
    static List<String> strict(Map<String, Object> doc, Class<?> type) {
        List<String> problems = new ArrayList<>();
        Object model;
        try {
            model = STRICT.convertValue(doc, type);
        } catch (JacksonException | IllegalArgumentException e) {
            problems.add("does not read as a " + type.getSimpleName() + ": " + e.getMessage());
            return problems;
        }
        unknownFields(model, "", problems, new IdentityHashMap<>());
        return problems;
    }

    /** What is wrong with {@code doc} as a batch/v1 CronJob; empty if nothing. */
    static List<String> validate(Map<String, Object> doc) {
        List<String> problems = strict(doc, CronJob.class);
        if (!problems.isEmpty()) {
            return problems;
        }
        CronJob cronJob = read(doc);
        if (!"batch/v1".equals(cronJob.getApiVersion()) || !"CronJob".equals(cronJob.getKind())) {
            problems.add(
                    "apiVersion/kind must be batch/v1 CronJob, are "
                            + cronJob.getApiVersion()
                            + " "
                            + cronJob.getKind());
        }
        CronJobSpec spec = cronJob.getSpec();
        if (spec == null) {
            problems.add("no spec");
            return problems;
        }
        String schedule = spec.getSchedule();
        if (schedule == null || schedule.trim().split("\\s+").length != 5) {
            problems.add("spec.schedule must be a five-field cron expression, is " + schedule);
        } else if (schedule.contains("TZ")) {
            problems.add("spec.schedule must not set TZ: use spec.timeZone");
        }
        if (spec.getTimeZone() != null) {
            try {
                ZoneId.of(spec.getTimeZone());
            } catch (DateTimeException e) {
                problems.add("spec.timeZone is not a time zone name: " + spec.getTimeZone());
            }
        }
        if (spec.getConcurrencyPolicy() != null
                && !CONCURRENCY.contains(spec.getConcurrencyPolicy())) {
            problems.add("spec.concurrencyPolicy must be one of " + CONCURRENCY);
        }
        if (spec.getJobTemplate() == null || spec.getJobTemplate().getSpec() == null) {
            problems.add("no spec.jobTemplate.spec");
            return problems;
        }
        JobSpec job = spec.getJobTemplate().getSpec();
        if (job.getBackoffLimit() != null && job.getBackoffLimit() < 0) {
            problems.add("backoffLimit must not be negative");
        }
        if (job.getActiveDeadlineSeconds() != null && job.getActiveDeadlineSeconds() <= 0) {
            problems.add("activeDeadlineSeconds must be positive");
        }
        PodSpec pod = job.getTemplate() == null ? null : job.getTemplate().getSpec();
        if (pod == null || pod.getContainers() == null || pod.getContainers().isEmpty()) {
            problems.add("the Job's pod template has no containers");
            return problems;
        }
        String restart = pod.getRestartPolicy();
        if (!"Never".equals(restart) && !"OnFailure".equals(restart)) {
            problems.add("a Job's restartPolicy must be Never or OnFailure, is " + restart);
        }
        Set<String> containerNames = new HashSet<>();
        for (Container c : pod.getContainers()) {
            if (!containerNames.add(c.getName())) {
                problems.add("duplicate container name " + c.getName());
            }
            if (c.getImage() == null || c.getImage().isBlank()) {
                problems.add("container " + c.getName() + " has no image");
            }
        }
        if (pod.getInitContainers() != null) {
            pod.getInitContainers().forEach(c -> containerNames.add(c.getName()));
        }
        Set<String> volumes = new HashSet<>();
        if (pod.getVolumes() != null) {
            pod.getVolumes().stream().map(Volume::getName).forEach(volumes::add);
        }
        for (Container c : pod.getContainers()) {
            if (c.getVolumeMounts() != null) {
                for (VolumeMount m : c.getVolumeMounts()) {
                    if (!volumes.contains(m.getName())) {
                        problems.add(
                                "container "
                                        + c.getName()
                                        + " mounts volume "
                                        + m.getName()
                                        + ", which the pod does not have");
                    }
                }
            }
        }
        PodFailurePolicy policy = job.getPodFailurePolicy();
        if (policy != null) {
            if (!"Never".equals(restart)) {
                problems.add("a podFailurePolicy requires restartPolicy Never, is " + restart);
            }
            List<PodFailurePolicyRule> rules =
                    policy.getRules() == null ? List.of() : policy.getRules();
            if (rules.size() > 20) {
                problems.add("at most 20 podFailurePolicy rules");
            }
            for (int i = 0; i < rules.size(); i++) {
                rule(rules.get(i), "podFailurePolicy.rules[" + i + "]", containerNames, problems);
                if ("FailIndex".equals(rules.get(i).getAction())
                        && job.getBackoffLimitPerIndex() == null) {
                    problems.add("FailIndex needs backoffLimitPerIndex");
                }
            }
        }
        return problems;
    }

    private static void rule(
            PodFailurePolicyRule rule,
            String where,
            Set<String> containers,
            List<String> problems) {
        if (!ACTIONS.contains(rule.getAction())) {
            problems.add(where + ".action must be one of " + ACTIONS + ", is " + rule.getAction());
        }
        PodFailurePolicyOnExitCodesRequirement codes = rule.getOnExitCodes();
        List<PodFailurePolicyOnPodConditionsPattern> conditions = rule.getOnPodConditions();
        boolean hasConditions = conditions != null && !conditions.isEmpty();
        if ((codes == null) == !hasConditions) {
            problems.add(where + ": exactly one of onExitCodes and onPodConditions");
        }
        if (codes != null) {
            String op = codes.getOperator();
            if (!"In".equals(op) && !"NotIn".equals(op)) {
                problems.add(where + ".onExitCodes.operator must be In or NotIn, is " + op);
            }
            List<Integer> values = codes.getValues() == null ? List.of() : codes.getValues();
            if (values.isEmpty() || values.size() > 255) {
                problems.add(where + ".onExitCodes.values: 1 to 255 values");
            }
            for (int i = 0; i < values.size(); i++) {
                if (i > 0 && values.get(i) <= values.get(i - 1)) {
                    problems.add(where + ".onExitCodes.values must be ordered, without duplicates");
                }
                if (values.get(i) == 0 && "In".equals(op)) {
                    problems.add(where + ".onExitCodes.values: 0 cannot be used with In");
                }
            }
            if (codes.getContainerName() != null
                    && !containers.contains(codes.getContainerName())) {
                problems.add(
                        where
                                + ".onExitCodes.containerName "
                                + codes.getContainerName()
                                + " is not a container of the pod");
            }
        }
        if (hasConditions) {
            for (PodFailurePolicyOnPodConditionsPattern p : conditions) {
                if (p.getType() == null || p.getType().isBlank()) {
                    problems.add(where + ".onPodConditions: a type is required");
                }
                if (p.getStatus() != null
                        && !Set.of("True", "False", "Unknown").contains(p.getStatus())) {
                    problems.add(where + ".onPodConditions.status must be True, False or Unknown");
                }
            }
        }
    }

    /**
     * What the Job does with a pod whose container {@code container} ended with {@code exitCode}:
     * the action of the first rule that matches, Count when none does (the Kubernetes default).
     */
    static String actionFor(JobSpec job, String container, int exitCode) {
        PodFailurePolicy policy = job.getPodFailurePolicy();
        if (policy == null || policy.getRules() == null) {
            return "Count";
        }
        for (PodFailurePolicyRule rule : policy.getRules()) {
            PodFailurePolicyOnExitCodesRequirement codes = rule.getOnExitCodes();
            if (codes == null
                    || (codes.getContainerName() != null
                            && !codes.getContainerName().equals(container))) {
                continue;
            }
            boolean in = codes.getValues().contains(exitCode);
            if ("In".equals(codes.getOperator()) == in) {
                return rule.getAction();
            }
        }
        return "Count";
    }

    /** What the Job does with a pod that failed with condition {@code type} True. */
    static String actionForCondition(JobSpec job, String type) {
        PodFailurePolicy policy = job.getPodFailurePolicy();
        if (policy == null || policy.getRules() == null) {
            return "Count";
        }
        for (PodFailurePolicyRule rule : policy.getRules()) {
            if (rule.getOnPodConditions() != null) {
                for (PodFailurePolicyOnPodConditionsPattern p : rule.getOnPodConditions()) {
                    if (type.equals(p.getType())
                            && (p.getStatus() == null || "True".equals(p.getStatus()))) {
                        return rule.getAction();
                    }
                }
            }
        }
        return "Count";
    }

    /**
     * Every non-empty {@code additionalProperties} map in the model object graph: fields the model
     * (and so Kubernetes) does not know, e.g. a misspelled one.
     */
    private static void unknownFields(
            Object node, String path, List<String> problems, Map<Object, Boolean> seen) {
        if (node == null || seen.put(node, Boolean.TRUE) != null) {
            return;
        }
        if (node instanceof Collection<?> c) {
            int i = 0;
            for (Object item : c) {
                unknownFields(item, path + "[" + i++ + "]", problems, seen);
            }
            return;
        }
        if (node instanceof Map<?, ?> m) {
            m.forEach((k, v) -> unknownFields(v, path + "." + k, problems, seen));
            return;
        }
        if (!node.getClass().getName().startsWith("io.fabric8.kubernetes.api.model")) {
            return;
        }
        for (Method getter : node.getClass().getMethods()) {
            if (getter.getParameterCount() != 0
                    || Modifier.isStatic(getter.getModifiers())
                    || !getter.getName().startsWith("get")
                    || getter.getName().equals("getClass")) {
                continue;
            }
            Object value;
            try {
                value = getter.invoke(node);
            } catch (IllegalAccessException | InvocationTargetException e) {
                continue;
            }
            if (getter.getName().equals("getAdditionalProperties")) {
                if (value instanceof Map<?, ?> extra && !extra.isEmpty()) {
                    problems.add(
                            (path.isEmpty() ? "(top level)" : path.substring(1))
                                    + ": unknown field(s) "
                                    + extra.keySet());
                }
                continue;
            }
            String field =
                    Character.toLowerCase(getter.getName().charAt(3))
                            + getter.getName().substring(4);
            unknownFields(value, path + "." + field, problems, seen);
        }
    }
}
