package org.fraudpipe.job.savepoint.migrate;

import java.io.IOException;
import java.io.PrintWriter;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.stream.Stream;
import org.fraudpipe.job.cli.CommandLines;
import org.fraudpipe.job.cli.JobOptions;
import org.fraudpipe.job.config.JobConfig;
import org.fraudpipe.job.config.JobOption;
import org.fraudpipe.job.savepoint.SavepointGuard;
import org.fraudpipe.job.window.FeatureWindowSpec;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code ./fraud savepoint migrate}: rewrites a savepoint of the first release (Flink's {@code
 * WindowOperator} as the feature window) into this build's window state, with {@link
 * SavepointMigration}. Exit codes: 0 migrated, 1 failure while migrating (unreadable savepoint,
 * window size or lateness that do not match it), 2 bad usage (the message names the option; also a
 * savepoint that needs no migration).
 */
@Command(
        name = "savepoint",
        mixinStandardHelpOptions = true,
        description = "Savepoint tools of the feature job.",
        subcommands = {SavepointCommand.Migrate.class})
public final class SavepointCommand implements Runnable {

    @Spec CommandSpec spec;

    @Override
    public void run() {
        spec.commandLine().usage(spec.commandLine().getOut());
    }

    /** {@code ./fraud savepoint migrate}. */
    @Command(
            name = "migrate",
            mixinStandardHelpOptions = true,
            sortOptions = false,
            usageHelpAutoWidth = true,
            description = {
                "Migrate a savepoint (or retained checkpoint) of the first release to this build's"
                        + " window state: the window operator's state is read window by window and"
                        + " written as the current feature window's (same uid of every other"
                        + " operator, their state carried over as it is). The input is not changed.",
                "Give the window size and allowed lateness the job ran with (checked against the"
                        + " savepoint's windows and timers), then restore the job from --to."
            },
            footer = {
                "",
                "Example (then restore the job from new-sp: docs/DEPLOY.md):",
                "  ./fraud savepoint migrate --from old-sp --to new-sp --allowed-lateness 2m",
            })
    static final class Migrate implements Callable<Integer> {

        static final List<JobOption> OPTIONS =
                List.of(JobOption.WINDOW_SIZE, JobOption.ALLOWED_LATENESS);

        @Spec CommandSpec spec;

        @Option(
                names = "--from",
                paramLabel = "PATH",
                required = true,
                description = "The savepoint directory (or URI) to migrate; read only.")
        String from;

        @Option(
                names = "--to",
                paramLabel = "PATH",
                required = true,
                description = "Where to write the migrated savepoint; must not exist or be empty.")
        String to;

        @Option(
                names = "--parallelism",
                paramLabel = "N",
                defaultValue = "2",
                description =
                        "Parallelism of the migration's batch job (default: ${DEFAULT-VALUE}).")
        int parallelism;

        @Override
        public Integer call() throws Exception {
            FeatureWindowSpec windows = windows();
            if (parallelism < 1) {
                throw usage("--parallelism must be at least 1, was " + parallelism);
            }
            refuseNonEmpty(to);
            try {
                if (!SavepointGuard.needsMigration(from)) {
                    throw usage(
                            "--from "
                                    + from
                                    + " holds no window state of the first release: nothing to"
                                    + " migrate, restore it as it is");
                }
            } catch (IOException e) {
                throw usage("--from " + from + " is not a readable savepoint: " + e.getMessage());
            }
            PrintWriter out = spec.commandLine().getOut();
            try {
                SavepointMigration.Result result =
                        SavepointMigration.migrate(from, to, windows, parallelism);
                out.printf(
                        "Migrated %d windows of %s (%s) to %s; restore the job from there.%n",
                        result.windows(), from, windows, to);
                return 0;
            } catch (Exception e) {
                Throwable cause = e;
                while (cause.getCause() != null && !(cause instanceof IllegalArgumentException)) {
                    cause = cause.getCause();
                }
                spec.commandLine()
                        .getErr()
                        .println("savepoint migrate: failed: " + cause.getMessage());
                return 1;
            }
        }

        private FeatureWindowSpec windows() {
            Map<String, String> values =
                    JobOptions.given(spec.commandLine().getParseResult(), OPTIONS);
            try {
                JobConfig config = JobConfig.of(values);
                return new FeatureWindowSpec(config.windowSize(), config.allowedLateness());
            } catch (IllegalArgumentException e) {
                throw usage(e.getMessage());
            }
        }

        private void refuseNonEmpty(String path) {
            Path local = localPath(path);
            if (local == null || !Files.exists(local)) {
                return;
            }
            try (Stream<Path> entries =
                    Files.isDirectory(local) ? Files.list(local) : Stream.of(local)) {
                if (entries.findAny().isPresent()) {
                    throw usage("--to " + path + " exists and is not empty; give a new directory");
                }
            } catch (IOException e) {
                throw usage("--to " + path + " cannot be read: " + e.getMessage());
            }
        }

        private static Path localPath(String path) {
            URI uri = URI.create(path.replace(" ", "%20"));
            if (uri.getScheme() == null) {
                return Path.of(path);
            }
            return "file".equals(uri.getScheme()) ? Path.of(uri) : null;
        }

        private ParameterException usage(String message) {
            return new ParameterException(spec.commandLine(), message);
        }
    }

    /**
     * Entry point of the savepoint tool's jar on a cluster: {@code flink run <savepoint tool jar>
     * migrate --from ... --to ...} (docs/DEPLOY.md).
     */
    public static void main(String[] args) {
        int exit = commandLine().execute(args);
        if (exit != 0) {
            System.exit(exit);
        }
    }

    /** The command line of {@code ./fraud savepoint}, with the job's window options on migrate. */
    public static CommandLine commandLine() {
        CommandLine cl = new CommandLine(new SavepointCommand());
        JobOptions.addSome(
                cl.getSubcommands().get("migrate").getCommandSpec(),
                Migrate.OPTIONS,
                null,
                Map.of(),
                Map.of());
        return CommandLines.install(cl);
    }
}
