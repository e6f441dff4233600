package org.fraudpipe.job.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import org.fraudpipe.job.config.Durations;
import org.fraudpipe.job.config.JobOption;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.Model.OptionSpec;

/** The job's generated options say what their values are and what their defaults mean. */
class JobOptionsHelpTest {

    private static boolean isDuration(String value) {
        try {
            Durations.parse(value);
            return true;
        } catch (IllegalArgumentException e) {
            return false;
        }
    }

    @Test
    void everyDurationOptionIsLabelledDurationAndNoOtherIs() {
        for (JobOption o : JobOption.values()) {
            if (o.defaultValue().isEmpty()) {
                // An empty default means something else (e.g. "the window size"): the help says so.
                assertThat(o.defaultDescription())
                        .as("what an empty default of %s means", o.flag())
                        .isNotEmpty();
                continue;
            }
            assertThat(o.label() == JobOption.Label.DURATION)
                    .as("%s (default %s) is labelled %s", o.flag(), o.defaultValue(), o.label())
                    .isEqualTo(isDuration(o.defaultValue()));
        }
    }

    @Test
    void theJobsHelpShowsEachOptionsLabelAndWhatAnEmptyDefaultMeans() {
        CommandLine cl = JobCommand.commandLine();
        for (OptionSpec option : cl.getCommandSpec().options()) {
            if (option.arity().max() == 0) {
                continue; // --help, --version: no value
            }
            assertThat(option.paramLabel()).as(option.longestName()).isNotEqualTo("VALUE");
            assertThat(option.paramLabel()).as(option.longestName()).doesNotStartWith("<");
        }
        StringWriter help = new StringWriter();
        cl.usage(new PrintWriter(help, true));
        assertThat(help.toString())
                .contains("--window-size=DURATION")
                .contains("--model=FILE")
                .contains("--bootstrap-servers=HOST:PORT[,...]")
                .contains("(default: the shipped default model)")
                .doesNotContain("(default: )")
                .doesNotContain("=VALUE");
    }
}
