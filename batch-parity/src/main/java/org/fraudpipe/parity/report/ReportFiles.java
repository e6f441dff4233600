package org.fraudpipe.parity.report;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

/**
 * Writes {@code report.json} and {@code report.html} into the report directory, each atomically (a
 * temporary file, then a rename), so a scheduler or a person never reads half a report and a rerun
 * replaces the previous one: reruns are idempotent.
 */
public final class ReportFiles {

    public static final String JSON = "report.json";
    public static final String HTML = "report.html";

    private ReportFiles() {}

    /** Writes both files; returns the HTML report's path. */
    public static Path write(ParityReport report, Path dir) throws IOException {
        Files.createDirectories(dir);
        writeAtomically(dir.resolve(JSON), ReportJson.write(report));
        Path html = dir.resolve(HTML);
        writeAtomically(html, ReportHtml.render(report));
        return html;
    }

    private static void writeAtomically(Path target, String content) throws IOException {
        Path tmp = Files.createTempFile(target.getParent(), "." + target.getFileName(), ".tmp");
        try {
            Files.writeString(tmp, content, StandardCharsets.UTF_8);
            Files.move(
                    tmp,
                    target,
                    StandardCopyOption.REPLACE_EXISTING,
                    StandardCopyOption.ATOMIC_MOVE);
        } finally {
            Files.deleteIfExists(tmp);
        }
    }
}
