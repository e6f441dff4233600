package org.fraudpipe.tools;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.fraudpipe.job.cli.DurationConverter;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.Model.OptionSpec;

/**
 * The help of every {@code ./fraud} command: usage lines that say {@code ./fraud ...}, example
 * commands that can be pasted (one line each, never wrapped, fitting 80 columns), parameter labels
 * that say what a value is ({@code DURATION} for every duration), defaults that are not split or
 * empty.
 */
class HelpTextTest {

    /** Widths to render at: picocli's narrowest, the default, a wide terminal. */
    private static final int[] WIDTHS = {55, 80, 120};

    /** Every command line of the tree, the root's subcommands and theirs. */
    private static List<CommandLine> commands() {
        List<CommandLine> all = new ArrayList<>();
        collect(FraudCli.commandLine(), all);
        all.remove(0); // the root: its help is the launcher's own
        return all;
    }

    private static void collect(CommandLine cl, List<CommandLine> all) {
        all.add(cl);
        cl.getSubcommands().values().forEach(sub -> collect(sub, all));
    }

    private static String help(CommandLine cl, int width) {
        cl.setUsageHelpAutoWidth(false);
        cl.setUsageHelpWidth(width);
        StringWriter out = new StringWriter();
        cl.usage(new PrintWriter(out, true));
        return out.toString();
    }

    private static String name(CommandLine cl) {
        return cl.getCommandSpec().qualifiedName(" ");
    }

    @Test
    void everyUsageLineSaysFraud() {
        for (CommandLine cl : commands()) {
            assertThat(help(cl, 80)).as(name(cl)).startsWith("Usage: " + name(cl) + " ");
            assertThat(name(cl)).startsWith("./fraud ");
        }
        assertThat(commands())
                .extracting(HelpTextTest::name)
                .contains("./fraud kafka start", "./fraud savepoint migrate", "./fraud job");
    }

    @Test
    void everyExampleIsOneLineThatFitsAndIsPrintedWhole() {
        int examples = 0;
        for (CommandLine cl : commands()) {
            String[] footer = cl.getCommandSpec().usageMessage().footer();
            List<String> commandLines =
                    Arrays.stream(footer).filter(l -> l.startsWith("  ")).toList();
            for (String example : commandLines) {
                examples++;
                assertThat(example.strip())
                        .as("an example of %s is a command", name(cl))
                        .startsWith("./fraud ");
                assertThat(example)
                        .as("an example of %s fits 80 columns", name(cl))
                        .hasSizeLessThanOrEqualTo(80);
                assertThat(example).as("one line, no continuation").doesNotEndWith("\\");
                for (int width : WIDTHS) {
                    assertThat(help(cl, width).lines())
                            .as("help of %s at width %d", name(cl), width)
                            .contains(example);
                }
            }
        }
        assertThat(examples).as("examples found").isGreaterThan(10);
    }

    @Test
    void everyOptionWithAValueHasALabelAndDurationsSayDuration() {
        for (CommandLine cl : commands()) {
            for (OptionSpec o : cl.getCommandSpec().options()) {
                if (o.arity().max() == 0) {
                    continue;
                }
                String what = name(cl) + " " + o.longestName();
                assertThat(o.paramLabel()).as(what).doesNotStartWith("<").isNotEqualTo("VALUE");
                boolean duration =
                        o.type() == Duration.class
                                || (o.converters().length > 0
                                        && o.converters()[0] instanceof DurationConverter);
                if (duration) {
                    assertThat(o.paramLabel()).as(what).isEqualTo("DURATION");
                }
            }
        }
    }

    @Test
    void theDurationsOfTheJobsOptionsSayDurationInEveryCommand() {
        for (CommandLine cl : commands()) {
            String help = help(cl, 80);
            for (String option :
                    List.of(
                            "--window-size",
                            "--allowed-lateness",
                            "--out-of-orderness",
                            "--future-tolerance",
                            "--duration",
                            "--timeout",
                            "--grace",
                            "--checkpoint-interval")) {
                if (help.contains(option + "=")) {
                    assertThat(help).as(name(cl)).contains(option + "=DURATION");
                }
            }
        }
    }

    /**
     * Picocli formats a description as a format string and, when that fails (a lone {@code %}),
     * prints {@code [picocli WARN] Could not format ...} to standard error at every rendering.
     */
    @Test
    void everyHelpRendersWithoutPicocliWarnings() {
        PrintStream err = System.err;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
        try {
            for (CommandLine cl : commands()) {
                help(cl, 80);
            }
        } finally {
            System.setErr(err);
        }
        assertThat(captured.toString(StandardCharsets.UTF_8)).isEmpty();
    }

    @Test
    void defaultsAreNeverEmptyNorSplitAcrossLines() {
        for (CommandLine cl : commands()) {
            for (int width : WIDTHS) {
                assertThat(help(cl, width)).as(name(cl)).doesNotContain("(default: )");
            }
        }
        CommandLine demo = FraudCli.commandLine().getSubcommands().get("demo");
        for (int width = 80; width <= 120; width++) {
            assertThat(help(demo, width)).as("width %d", width).contains(".fraud/demo/<UTC time>");
        }
        CommandLine replay = FraudCli.commandLine().getSubcommands().get("replay");
        assertThat(help(replay, 120)).contains("(default: the shipped default model)");
    }
}
