package org.fraudpipe.parity.input;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.connector.file.src.FileSource;
import org.apache.flink.connector.file.src.reader.TextLineInputFormat;
import org.apache.flink.core.fs.Path;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.fraudpipe.parity.Evidence;

/**
 * Fraud labels for the per-transaction check ({@code --labels FILE}): JSON Lines, one object per
 * transaction with at least {@code transactionId} (text), {@code userId} (text) and {@code fraud}
 * (true or false); other fields are ignored. The simulator's labels file ({@code ./fraud simulate},
 * {@code <out>.labels.jsonl}) is such a file, and so is any export of a bank's case system with
 * these three fields. Read on the cluster, keyed by user like the rest of the evidence.
 */
public final class TransactionLabels {

    private static final ObjectMapper JSON = new ObjectMapper();

    private TransactionLabels() {}

    /** The labels in {@code path} as {@link Evidence.Kind#LABEL} evidence. */
    public static DataStream<Evidence> read(StreamExecutionEnvironment env, String path) {
        FileSource<String> lines =
                FileSource.forRecordStreamFormat(new TextLineInputFormat(), new Path(path)).build();
        return env.fromSource(lines, WatermarkStrategy.noWatermarks(), "labels")
                .filter(line -> !line.isBlank())
                .map(TransactionLabels::parse, TypeInformation.of(Evidence.class))
                .name("parse labels");
    }

    /**
     * One line.
     *
     * @throws IllegalArgumentException naming what is missing
     */
    public static Evidence parse(String line) {
        JsonNode o;
        try {
            o = JSON.readTree(line);
        } catch (IOException e) {
            throw new IllegalArgumentException("a labels line is not JSON: " + abbreviate(line), e);
        }
        if (o == null
                || !o.path("transactionId").isTextual()
                || !o.path("userId").isTextual()
                || !o.path("fraud").isBoolean()) {
            throw new IllegalArgumentException(
                    "a labels line needs transactionId and userId (text) and fraud (true or"
                            + " false): "
                            + abbreviate(line));
        }
        return Evidence.label(
                o.get("userId").asText(),
                o.get("transactionId").asText(),
                o.get("fraud").asBoolean());
    }

    private static String abbreviate(String line) {
        return line.length() <= 120 ? line : line.substring(0, 117) + "...";
    }
}
