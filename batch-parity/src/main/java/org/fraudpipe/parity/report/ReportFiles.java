package org.fraudpipe.parity.report;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.fraudpipe.job.io.AtomicFiles;

/**
 * Writes {@code report.json} and {@code report.html} into the report directory, each atomically (a
 * temporary file, then a rename), so a scheduler or a person never reads half a report and a rerun
 * replaces the previous one: reruns are idempotent.
 */
public final class ReportFiles {

    public static final String JSON = "report.json";
    public static final String HTML = "report.html";

    /**
     * The lateness advisor's page ({@code ./fraud advise --out} the same directory, as {@code
     * ./fraud demo} does): when it is next to the report, {@code report.html} links it.
     */
    public static final String ADVICE_HTML = "advice.html";

    private ReportFiles() {}

    /** Writes both files; returns the HTML report's path. */
    public static Path write(ParityReport report, Path dir) throws IOException {
        AtomicFiles.write(dir.resolve(JSON), ReportJson.write(report));
        boolean advice = Files.isRegularFile(dir.resolve(ADVICE_HTML));
        return AtomicFiles.write(
                dir.resolve(HTML), ReportHtml.render(report, advice ? ADVICE_HTML : null));
    }
}
