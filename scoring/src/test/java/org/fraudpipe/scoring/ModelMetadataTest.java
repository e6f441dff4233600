package org.fraudpipe.scoring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ModelMetadataTest {

    @Test
    void entriesRoundTripThroughFromCustomMetadata() {
        Map<String, String> entries =
                ModelMetadata.entries(
                        "m",
                        "v2",
                        FeatureLayout.V1,
                        List.of("legit", "fraud"),
                        Duration.ofMinutes(5),
                        Map.of("fraudpipe.algorithm", "logistic-regression"));
        ModelMetadata m = ModelMetadata.fromCustomMetadata(entries);
        assertThat(m.name()).isEqualTo("m");
        assertThat(m.version()).isEqualTo("v2");
        assertThat(m.featureNames()).isEqualTo(FeatureLayout.V1.names());
        assertThat(m.labels()).containsExactly("legit", "fraud");
        assertThat(m.fraudColumn()).isEqualTo(1);
        assertThat(m.windowSize()).contains(Duration.ofMinutes(5));
        assertThat(m.custom()).containsEntry("fraudpipe.algorithm", "logistic-regression");
    }

    @Test
    void extraEntriesCannotRedefineRequiredKeys() {
        assertThatThrownBy(
                        () ->
                                ModelMetadata.entries(
                                        "m",
                                        "v",
                                        FeatureLayout.V1,
                                        List.of("fraud", "legit"),
                                        null,
                                        Map.of(ModelMetadata.NAME, "other")))
                .hasMessageContaining("reserved");
    }

    @Test
    void malformedEntriesFailNamingTheKey() {
        Map<String, String> base =
                TestModels.metadata(FeatureLayout.V1.names(), List.of("fraud", "legit"));
        java.util.Map<String, String> m = new java.util.HashMap<>(base);
        m.put(ModelMetadata.FEATURES, "a,,b");
        assertThatThrownBy(() -> ModelMetadata.fromCustomMetadata(m))
                .hasMessageContaining("`fraudpipe.features` has an empty entry");
        m.putAll(base);
        m.put(ModelMetadata.LABELS, "fraud,fraud");
        assertThatThrownBy(() -> ModelMetadata.fromCustomMetadata(m))
                .hasMessageContaining("names a label twice");
        m.putAll(base);
        m.put(ModelMetadata.WINDOW_SIZE, "10m");
        assertThatThrownBy(() -> ModelMetadata.fromCustomMetadata(m))
                .hasMessageContaining("`fraudpipe.window.size` must be an ISO-8601 duration");
    }
}
