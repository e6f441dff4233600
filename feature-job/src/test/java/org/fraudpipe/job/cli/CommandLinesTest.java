package org.fraudpipe.job.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.List;
import org.fraudpipe.job.testing.Cli;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * Usage errors of the job's and the savepoint tool's command lines, as {@code ./fraud} runs them:
 * two lines, what is wrong and where the options are, exit code 2; and footers whose examples are
 * never wrapped.
 */
class CommandLinesTest {

    private static List<String> lines(String text) {
        return text.lines().toList();
    }

    @Test
    void aBadJobOptionValueIsOneLineAndAHintNotAStackTrace() {
        Cli.Run r = Cli.fraud("job", "--window-size", "soon");
        assertThat(r.exitCode()).isEqualTo(CommandLines.EXIT_USAGE);
        assertThat(lines(r.err()))
                .containsExactly(
                        "job: --window-size 'soon' is not a duration: use " + durationsAccepted(),
                        "(./fraud job --help lists the options)");
    }

    private static String durationsAccepted() {
        return org.fraudpipe.job.config.Durations.ACCEPTED;
    }

    @Test
    void anUnreadableConfigFileIsAUsageError() {
        Cli.Run r = Cli.fraud("job", "--config", "/no/such/job.properties");
        assertThat(r.exitCode()).isEqualTo(CommandLines.EXIT_USAGE);
        assertThat(lines(r.err())).hasSize(2);
        assertThat(lines(r.err()).get(0))
                .startsWith("job: --config /no/such/job.properties cannot be read");
        assertThat(r.err()).doesNotContain("\tat ");
    }

    @Test
    void aMistypedOptionGetsASuggestion() {
        Cli.Run r = Cli.fraud("job", "--window-sise", "1m");
        assertThat(r.exitCode()).isEqualTo(CommandLines.EXIT_USAGE);
        assertThat(lines(r.err()).get(0))
                .startsWith("job: Unknown options: '--window-sise', '1m'")
                .endsWith("(did you mean --window-size?)");
        assertThat(lines(r.err()).get(1)).isEqualTo("(./fraud job --help lists the options)");
    }

    @Test
    void nestedCommandsNameTheirWholePath() {
        Cli.Run missing = Cli.fraud("savepoint", "migrate");
        assertThat(missing.exitCode()).isEqualTo(CommandLines.EXIT_USAGE);
        assertThat(lines(missing.err()))
                .containsExactly(
                        "savepoint migrate: Missing required options: '--from=PATH', '--to=PATH'",
                        "(./fraud savepoint migrate --help lists the options)");

        Cli.Run own =
                Cli.fraud("savepoint", "migrate", "--from", "a", "--to", "b", "--window-size", "x");
        assertThat(own.exitCode()).isEqualTo(CommandLines.EXIT_USAGE);
        assertThat(lines(own.err()).get(0)).startsWith("savepoint migrate: --window-size 'x'");
        assertThat(lines(own.err())).hasSize(2);
    }

    @Test
    void missingOptionsAreNamedTogether() {
        CommandLine cl = new CommandLine(new Example());
        assertThat(CommandLines.missing(cl, List.of("--a A")).getMessage())
                .isEqualTo("missing --a A");
        assertThat(CommandLines.missing(cl, List.of("--a A", "--b B", "--c C")).getMessage())
                .isEqualTo("missing --a A, --b B and --c C");
    }

    @Command(
            name = "example",
            footer = {
                "",
                "Examples, with a long explanation of what they do that is wrapped at the width:",
                "  ./fraud example --with-a-rather-long-option value --and another-value --and-more",
            })
    static final class Example implements Runnable {
        @Override
        public void run() {}
    }

    /** Throws what its option names: a refusal ("state"/"argument") or a defect ("bug"). */
    @Command(name = "thrower")
    static final class Thrower implements java.util.concurrent.Callable<Integer> {
        @CommandLine.Option(names = "--throw")
        String what;

        @Override
        public Integer call() {
            switch (what) {
                case "state" ->
                        throw new IllegalStateException(
                                "port 9092 is in use: choose another with --port");
                case "argument" -> throw new IllegalArgumentException("no such day: use --date");
                default -> throw new NullPointerException("a defect");
            }
        }
    }

    @Test
    void aRefusalIsOneLineExitTwoAndADefectKeepsItsStackTrace() {
        Cli.Run state =
                Cli.run(CommandLines.install(new CommandLine(new Thrower())), "--throw", "state");
        assertThat(state.exitCode()).isEqualTo(CommandLines.EXIT_USAGE);
        assertThat(lines(state.err()))
                .containsExactly("thrower: port 9092 is in use: choose another with --port");
        Cli.Run argument =
                Cli.run(
                        CommandLines.install(new CommandLine(new Thrower())),
                        "--throw",
                        "argument");
        assertThat(lines(argument.err())).containsExactly("thrower: no such day: use --date");

        Cli.Run defect =
                Cli.run(CommandLines.install(new CommandLine(new Thrower())), "--throw", "bug");
        assertThat(defect.exitCode()).isEqualTo(1);
        assertThat(defect.err()).contains("NullPointerException: a defect").contains("\tat ");
    }

    @Test
    void footerExamplesAreNeverWrappedAndProseIs() {
        CommandLine cl = CommandLines.install(new CommandLine(new Example()));
        cl.setUsageHelpWidth(55); // picocli's narrowest
        StringWriter help = new StringWriter();
        cl.usage(new PrintWriter(help, true));
        List<String> lines = lines(help.toString());
        assertThat(lines)
                .contains(
                        "  ./fraud example --with-a-rather-long-option value --and another-value"
                                + " --and-more");
        List<String> prose =
                lines.subList(lines.indexOf("") + 1, lines.size() - 1).stream()
                        .filter(l -> !l.startsWith(" "))
                        .toList();
        assertThat(prose).hasSizeGreaterThan(1).allMatch(l -> l.length() <= 55);
        assertThat(String.join(" ", prose))
                .isEqualTo(
                        "Examples, with a long explanation of what they do that is wrapped at"
                                + " the width:");
    }

    @Test
    void wrappingBreaksAtSpacesOnly() {
        assertThat(CommandLines.wrap("a bb ccc dddd", 6)).containsExactly("a bb", "ccc", "dddd");
        assertThat(CommandLines.wrap("averyveryverylongword x", 5))
                .containsExactly("averyveryverylongword", "x");
    }
}
