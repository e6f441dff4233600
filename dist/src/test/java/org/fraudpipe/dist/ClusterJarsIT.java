package org.fraudpipe.dist;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.jar.JarFile;
import java.util.zip.ZipEntry;
import org.junit.jupiter.api.Test;

/**
 * What the cluster jars carry (docs/DEPLOY.md, "The jars"): the right entry point, our job and what
 * a Flink distribution lacks; never Flink itself, a logging backend, the operator's tools, the
 * natives of another platform or debug symbols; and no more bytes than the bound each one is held
 * to (a jar that grows past it fails here, and the bound moves only with a reason in the commit).
 */
class ClusterJarsIT {

    private static final long MB = 1_000_000;

    /** Not in any cluster jar: the cluster provides it, or it belongs to the operator's tools. */
    private static final List<String> NEVER =
            List.of(
                    "org/apache/flink/api/common/",
                    "org/apache/flink/runtime/",
                    "org/apache/flink/streaming/api/",
                    "org/apache/flink/shaded/",
                    "org/apache/logging/log4j/",
                    "org/slf4j/",
                    "org/fraudpipe/tools/",
                    "org/fraudpipe/sim/",
                    "org/fraudpipe/local/",
                    "org/tribuo/",
                    "com/esotericsoftware/kryo/",
                    "log4j2",
                    ".dSYM/");

    private static final String PLATFORM = System.getProperty("fraud.dist.onnx-platform");

    private static JarFile jar(String property) throws IOException {
        Path path = Path.of(System.getProperty("fraud.dist.dir"), System.getProperty(property));
        assertThat(path).as("built by mvn package").isRegularFile();
        return new JarFile(path.toFile());
    }

    private static long size(JarFile jar) throws IOException {
        return Files.size(Path.of(jar.getName()));
    }

    private static void assertHas(JarFile jar, String... entries) {
        for (String e : entries) {
            assertThat(jar.getEntry(e)).as("%s in %s", e, jar.getName()).isNotNull();
        }
    }

    private static void assertHasNothingUnder(JarFile jar, List<String> prefixes) {
        List<String> found =
                jar.stream()
                        .map(ZipEntry::getName)
                        .filter(n -> prefixes.stream().anyMatch(n::contains))
                        .limit(10)
                        .toList();
        assertThat(found).as("entries of %s that must not be there", jar.getName()).isEmpty();
    }

    /** ONNX Runtime's natives: exactly those of the configured platform. */
    private static void assertOnnxNativesOfOnePlatform(JarFile jar) {
        List<String> platforms =
                jar.stream()
                        .map(ZipEntry::getName)
                        .filter(n -> n.startsWith("ai/onnxruntime/native/") && !n.endsWith("/"))
                        .map(n -> n.split("/")[3])
                        .distinct()
                        .toList();
        assertThat(platforms).containsExactly(PLATFORM);
    }

    @Test
    void theJobJarRunsTheJobWithItsConnectorsModelAndNativesOfOnePlatform() throws IOException {
        try (JarFile jar = jar("fraud.dist.job-jar")) {
            assertThat(jar.getManifest().getMainAttributes().getValue("Main-Class"))
                    .isEqualTo("org.fraudpipe.job.FeatureJob");
            assertHas(
                    jar,
                    "org/fraudpipe/job/KafkaFeatureJob.class",
                    "org/fraudpipe/job/savepoint/SavepointGuard.class",
                    "org/apache/flink/connector/kafka/source/KafkaSource.class",
                    "org/apache/kafka/clients/producer/KafkaProducer.class",
                    "org/apache/flink/formats/avro/typeutils/AvroSerializer.class",
                    "org/apache/avro/Schema.class",
                    "org/apache/commons/compress/compressors/CompressorStreamFactory.class",
                    "picocli/CommandLine.class",
                    "models/default/fraud-model.onnx",
                    "ai/onnxruntime/OrtEnvironment.class");
            assertOnnxNativesOfOnePlatform(jar);
            assertHasNothingUnder(jar, NEVER);
            // The savepoint migration and its State Processor API are the savepoint tool's.
            assertHasNothingUnder(
                    jar,
                    List.of(
                            "org/apache/flink/state/api/",
                            "org/fraudpipe/job/savepoint/migrate/",
                            "org/fraudpipe/parity/"));
            assertThat(size(jar)).isLessThan(42 * MB);
        }
    }

    @Test
    void theSavepointToolJarMigratesWithTheStateProcessorApiAndNoModel() throws IOException {
        try (JarFile jar = jar("fraud.dist.savepoint-jar")) {
            assertThat(jar.getManifest().getMainAttributes().getValue("Main-Class"))
                    .isEqualTo("org.fraudpipe.job.savepoint.migrate.SavepointCommand");
            assertHas(
                    jar,
                    "org/fraudpipe/job/savepoint/migrate/SavepointMigration.class",
                    "org/fraudpipe/job/window/WindowPaneSerializer.class",
                    "org/apache/flink/state/api/SavepointWriter.class");
            assertHasNothingUnder(jar, NEVER);
            assertHasNothingUnder(jar, List.of("ai/onnxruntime/", "org/fraudpipe/parity/"));
            assertThat(size(jar)).isLessThan(31 * MB);
        }
    }

    @Test
    void theParityJarChecksParityWithTheJobsFeatureCodeAndNothingOfTheTools() throws IOException {
        try (JarFile jar = jar("fraud.dist.parity-jar")) {
            assertThat(jar.getManifest().getMainAttributes().getValue("Main-Class"))
                    .isEqualTo("org.fraudpipe.parity.cli.ParityCommand");
            assertHas(
                    jar,
                    "org/fraudpipe/parity/ParityPipeline.class",
                    "org/fraudpipe/job/window/FeatureWindows.class",
                    "org/apache/flink/formats/avro/AvroInputFormat.class",
                    "models/default/fraud-model.onnx");
            assertOnnxNativesOfOnePlatform(jar);
            assertHasNothingUnder(jar, NEVER);
            assertHasNothingUnder(
                    jar,
                    List.of("org/apache/flink/state/api/", "org/fraudpipe/job/savepoint/migrate/"));
            assertThat(size(jar)).isLessThan(42 * MB);
        }
    }
}
