package org.fraudpipe.deploy.kubernetes;

import com.networknt.schema.Error;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SpecificationVersion;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The FlinkDeployment CRD as the Flink Kubernetes Operator publishes it (the openAPIV3Schema of its
 * {@code v1beta1} version, from flink-kubernetes-operator-api's jar on Maven Central), as a JSON
 * Schema validator of a document's {@code spec}.
 *
 * <p>Two adjustments make the JSON Schema validator judge as the Kubernetes API server does:
 *
 * <ul>
 *   <li>Structural schemas are closed: a field the schema does not list is not kept (pruned, and
 *       refused by {@code kubectl apply}'s default strict field validation) unless the object says
 *       {@code x-kubernetes-preserve-unknown-fields}. JSON Schema leaves objects open, so every
 *       object schema with {@code properties} and no {@code additionalProperties} is closed here.
 *       Other {@code x-kubernetes-*} keywords are annotations to the validator (ignored).
 *   <li>{@code flinkVersion}'s enum gains {@link #FLINK_2_VERSIONS}: the newest operator API on
 *       Maven Central here is 1.10.0, whose enum ends at v1_20; the operator added v2_0 in 1.11.0
 *       and v2_1, v2_2 in 1.13.0 (its FlinkVersion enum), the only change to the enum between them.
 *       Nothing else is widened.
 * </ul>
 */
final class FlinkDeploymentSchema {

    static final String CRD_RESOURCE = "META-INF/fabric8/flinkdeployments.flink.apache.org-v1.yml";
    static final String API_VERSION = "flink.apache.org/v1beta1";
    static final List<String> FLINK_2_VERSIONS = List.of("v2_0", "v2_1", "v2_2");

    /** Flink's rule for kubernetes.cluster-id, the FlinkDeployment's name. */
    private static final Pattern CLUSTER_ID = Pattern.compile("[a-z]([-a-z0-9]*[a-z0-9])?");

    private final JsonNode crd;
    private final ObjectNode specSchema;
    private final Schema schema;

    FlinkDeploymentSchema() {
        try (InputStream in =
                FlinkDeploymentSchema.class.getClassLoader().getResourceAsStream(CRD_RESOURCE)) {
            if (in == null) {
                throw new IllegalStateException(CRD_RESOURCE + " is not on the test class path");
            }
            crd = Manifests.YAML.readTree(in);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        JsonNode openApi = null;
        for (JsonNode version : crd.at("/spec/versions")) {
            if ("v1beta1".equals(version.get("name").asString())) {
                openApi = version.at("/schema/openAPIV3Schema");
            }
        }
        if (openApi == null || openApi.isMissingNode()) {
            throw new IllegalStateException("the CRD has no v1beta1 schema");
        }
        specSchema = (ObjectNode) openApi.at("/properties/spec").deepCopy();
        close(specSchema);
        ArrayNode versions = (ArrayNode) specSchema.at("/properties/flinkVersion/enum");
        FLINK_2_VERSIONS.forEach(versions::add);
        schema =
                SchemaRegistry.withDefaultDialect(SpecificationVersion.DRAFT_2019_09)
                        .getSchema(specSchema);
    }

    /** Where the CRD was read from: a jar of the class path. */
    static String crdLocation() {
        return String.valueOf(
                FlinkDeploymentSchema.class.getClassLoader().getResource(CRD_RESOURCE));
    }

    /** The flinkVersion values the published CRD itself (not widened) accepts. */
    List<String> publishedFlinkVersions() {
        List<String> out = new ArrayList<>();
        for (JsonNode version : crd.at("/spec/versions")) {
            if ("v1beta1".equals(version.get("name").asString())) {
                version.at("/schema/openAPIV3Schema/properties/spec/properties/flinkVersion/enum")
                        .forEach(v -> out.add(v.asString()));
            }
        }
        return out;
    }

    /** What is wrong with {@code doc} as a FlinkDeployment; empty if nothing. */
    List<String> validate(Map<String, Object> doc) {
        List<String> problems = new ArrayList<>();
        if (!API_VERSION.equals(doc.get("apiVersion"))) {
            problems.add("apiVersion must be " + API_VERSION + ", is " + doc.get("apiVersion"));
        }
        if (!"FlinkDeployment".equals(doc.get("kind"))) {
            problems.add("kind must be FlinkDeployment, is " + doc.get("kind"));
        }
        Object metadata = doc.get("metadata");
        Object name = metadata instanceof Map<?, ?> m ? m.get("name") : null;
        if (!(name instanceof String s) || s.length() > 45 || !CLUSTER_ID.matcher(s).matches()) {
            problems.add(
                    "metadata.name must be a Flink cluster id (lower-case DNS label, at most 45"
                            + " characters), is "
                            + name);
        }
        Object spec = doc.get("spec");
        if (spec == null) {
            problems.add("no spec");
            return problems;
        }
        JsonNode instance = Manifests.YAML.valueToTree(spec);
        for (Error e : schema.validate(instance)) {
            problems.add("spec" + e.getInstanceLocation() + ": " + e.getMessage());
        }
        return problems;
    }

    /**
     * Closes every object schema that lists properties and neither says what else it accepts nor
     * preserves unknown fields, recursively.
     */
    private static void close(JsonNode node) {
        if (node instanceof ObjectNode o) {
            boolean preserves =
                    o.has("x-kubernetes-preserve-unknown-fields")
                            && o.get("x-kubernetes-preserve-unknown-fields").asBoolean();
            if (o.has("properties") && !o.has("additionalProperties") && !preserves) {
                o.put("additionalProperties", false);
            }
            if (o.has("properties")) {
                o.get("properties").forEach(FlinkDeploymentSchema::close);
            }
            for (String key : List.of("items", "additionalProperties", "not")) {
                if (o.has(key)) {
                    close(o.get(key));
                }
            }
            for (String key : List.of("anyOf", "allOf", "oneOf")) {
                if (o.has(key)) {
                    o.get(key).forEach(FlinkDeploymentSchema::close);
                }
            }
        }
    }
}
