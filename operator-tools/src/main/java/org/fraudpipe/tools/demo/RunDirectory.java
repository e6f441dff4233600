package org.fraudpipe.tools.demo;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Locale;
import org.fraudpipe.job.config.JobConfig;

/**
 * Where a long command's run keeps everything (the demo, the soak, the rehearsal), and its log
 * there: one place for the layout {@code <project>/.fraud/<command>/<UTC time>}.
 */
public final class RunDirectory {

    private RunDirectory() {}

    /**
     * {@code given} if set, else a new directory {@code .fraud/<command>/yyyyMMdd-HHmmss} under the
     * project ({@value JobConfig#HOME_PROPERTY}), suffixed {@code -2}, {@code -3} ... if it exists.
     */
    public static Path of(Path given, String command) {
        if (given != null) {
            return given.toAbsolutePath().normalize();
        }
        Path base =
                Path.of(System.getProperty(JobConfig.HOME_PROPERTY, "."), ".fraud", command)
                        .toAbsolutePath()
                        .normalize();
        String stamp =
                DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss", Locale.ROOT)
                        .format(LocalDateTime.now(ZoneOffset.UTC));
        Path run = base.resolve(stamp);
        for (int i = 2; Files.exists(run); i++) {
            run = base.resolve(stamp + "-" + i);
        }
        return run;
    }

    /**
     * Sends Flink's, Kafka's and the command's own logging to {@code logFile} ({@code
     * log4j2-demo.xml} reads it from {@value DemoCommand#LOG_FILE_PROPERTY}); the terminal keeps
     * the command's own lines. Log4j may have configured itself already (a class with a logger
     * loaded while the commands were built): it reads its configuration again.
     */
    public static void logInto(Path logFile) {
        System.setProperty(DemoCommand.LOG_FILE_PROPERTY, logFile.toString());
        ((org.apache.logging.log4j.core.LoggerContext)
                        org.apache.logging.log4j.LogManager.getContext(false))
                .reconfigure();
    }
}
