package org.fraudpipe.job.cli;

import java.time.Duration;
import org.fraudpipe.job.config.Durations;
import picocli.CommandLine;

/**
 * Picocli's view of {@link Durations#parse}. On bad input picocli reports {@code Invalid value for
 * option '--x': '<text>' is not a duration: ...}, so the message names the option and says what
 * would be accepted.
 */
public final class DurationConverter implements CommandLine.ITypeConverter<Duration> {

    @Override
    public Duration convert(String value) {
        try {
            return Durations.parse(value);
        } catch (IllegalArgumentException e) {
            throw new CommandLine.TypeConversionException(e.getMessage());
        }
    }
}
