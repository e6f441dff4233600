package org.fraudpipe.tools.advise;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.fraudpipe.job.io.AtomicFiles;

/**
 * Writes {@code advice.json} (pretty-printed, fields in declaration order, instants as ISO-8601
 * UTC) and {@code advice.html} into the output directory, each atomically, so a rerun replaces them
 * and equal advice gives equal bytes.
 */
public final class AdviceFiles {

    public static final String JSON = "advice.json";
    public static final String HTML = "advice.html";

    private static final ObjectMapper MAPPER =
            JsonMapper.builder()
                    .addModule(new JavaTimeModule())
                    .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS)
                    .enable(SerializationFeature.INDENT_OUTPUT)
                    .enable(SerializationFeature.ORDER_MAP_ENTRIES_BY_KEYS)
                    .build();

    private AdviceFiles() {}

    /** Writes both files; returns the HTML's path. */
    public static Path write(Advice advice, Path dir) throws IOException {
        Files.createDirectories(dir);
        AtomicFiles.write(dir.resolve(JSON), json(advice));
        return AtomicFiles.write(dir.resolve(HTML), AdviceHtml.render(advice));
    }

    static String json(Advice advice) {
        try {
            return MAPPER.writeValueAsString(advice) + "\n";
        } catch (IOException e) {
            throw new IllegalStateException("the advice cannot be written as JSON: " + e, e);
        }
    }

    /** Reads an advice file back (tests, tools). */
    public static JsonNode read(Path file) throws IOException {
        return MAPPER.readTree(Files.readString(file));
    }
}
