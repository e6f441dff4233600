package org.fraudpipe.parity.report;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import java.io.IOException;

/**
 * {@code report.json}: the {@link ParityReport} as pretty-printed JSON, instants as ISO-8601 UTC
 * strings, fields in declaration order, map entries sorted, so equal reports give equal bytes.
 */
public final class ReportJson {

    private static final ObjectMapper MAPPER =
            JsonMapper.builder()
                    .addModule(new JavaTimeModule())
                    .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS)
                    .enable(SerializationFeature.INDENT_OUTPUT)
                    .enable(SerializationFeature.ORDER_MAP_ENTRIES_BY_KEYS)
                    .build();

    private ReportJson() {}

    public static String write(ParityReport report) {
        try {
            return MAPPER.writeValueAsString(report) + "\n";
        } catch (IOException e) {
            throw new IllegalStateException("the report cannot be written as JSON: " + e, e);
        }
    }

    /** Reads a report back (for tests and tools). */
    public static com.fasterxml.jackson.databind.JsonNode read(String json) throws IOException {
        return MAPPER.readTree(json);
    }
}
