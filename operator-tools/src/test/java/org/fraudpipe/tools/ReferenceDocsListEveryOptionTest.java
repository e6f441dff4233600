package org.fraudpipe.tools;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.fraudpipe.parity.cli.ParityCommand;
import org.fraudpipe.tools.advise.AdviseCommand;
import org.fraudpipe.tools.demo.DemoCommand;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.Model.OptionSpec;

/**
 * The configuration reference (docs/CONFIGURATION.md) must list every option of {@code ./fraud
 * demo}, {@code ./fraud parity} and {@code ./fraud advise}, with the default picocli applies where
 * there is one.
 */
class ReferenceDocsListEveryOptionTest {

    private static String reference() throws Exception {
        return Files.readString(
                Path.of(System.getProperty("user.dir"))
                        .getParent()
                        .resolve("docs")
                        .resolve("CONFIGURATION.md"),
                StandardCharsets.UTF_8);
    }

    private static void assertDocumented(String command, CommandLine cl) throws Exception {
        String reference = reference();
        for (OptionSpec option : cl.getCommandSpec().options()) {
            if (option.usageHelp() || option.versionHelp()) {
                continue;
            }
            String row = "| `" + option.longestName() + "` | ";
            if (option.defaultValue() != null) {
                row += "`" + option.defaultValue() + "` |";
            }
            assertThat(reference)
                    .as("docs/CONFIGURATION.md row of %s %s", command, option.longestName())
                    .contains(row);
        }
    }

    @Test
    void everyDemoOptionIsInTheConfigurationReference() throws Exception {
        assertDocumented("./fraud demo", DemoCommand.commandLine());
    }

    @Test
    void everyParityOptionIsInTheConfigurationReference() throws Exception {
        assertDocumented("./fraud parity", ParityCommand.commandLine());
    }

    @Test
    void everyAdviseOptionIsInTheConfigurationReference() throws Exception {
        assertDocumented("./fraud advise", AdviseCommand.commandLine());
    }
}
