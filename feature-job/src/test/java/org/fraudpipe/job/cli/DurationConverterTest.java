package org.fraudpipe.job.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

class DurationConverterTest {

    private final DurationConverter converter = new DurationConverter();

    @Test
    void acceptsUnitsCombinationsAndIso8601() {
        assertThat(converter.convert("500ms")).isEqualTo(Duration.ofMillis(500));
        assertThat(converter.convert("45s")).isEqualTo(Duration.ofSeconds(45));
        assertThat(converter.convert("30m")).isEqualTo(Duration.ofMinutes(30));
        assertThat(converter.convert("2h")).isEqualTo(Duration.ofHours(2));
        assertThat(converter.convert("1d")).isEqualTo(Duration.ofHours(24));
        assertThat(converter.convert("1h30m")).isEqualTo(Duration.ofMinutes(90));
        assertThat(converter.convert("2H")).isEqualTo(Duration.ofHours(2));
        assertThat(converter.convert("PT1H")).isEqualTo(Duration.ofHours(1));
        assertThat(converter.convert("P1D")).isEqualTo(Duration.ofDays(1));
        assertThat(converter.convert("0s")).isZero();
    }

    @Test
    void rejectsOtherFormsSayingWhatIsAccepted() {
        for (String bad : new String[] {"5x", "abc", "10", "1.5h", "m", "PT", "1h 30m"}) {
            assertThatThrownBy(() -> converter.convert(bad))
                    .as(bad)
                    .isInstanceOf(CommandLine.TypeConversionException.class)
                    .hasMessageStartingWith(
                            "'" + bad + "' is not a duration: use a number with a unit");
        }
        assertThatThrownBy(() -> converter.convert("")).hasMessageContaining("empty");
        assertThatThrownBy(() -> converter.convert("-PT1H")).hasMessageContaining("negative");
        assertThatThrownBy(() -> converter.convert("99999999999999999999d"))
                .hasMessageContaining("too large");
    }
}
