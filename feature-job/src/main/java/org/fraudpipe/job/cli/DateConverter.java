package org.fraudpipe.job.cli;

import java.time.LocalDate;
import java.time.format.DateTimeParseException;
import picocli.CommandLine;

/**
 * A UTC day given as {@code YYYY-MM-DD}. On bad input picocli reports {@code Invalid value for
 * option '--date': 'yesterday' is not a day: use YYYY-MM-DD, e.g. 2026-11-28}: the option, the
 * value and the expected form, not Java's parser exception.
 */
public final class DateConverter implements CommandLine.ITypeConverter<LocalDate> {

    /** The form of a day on the command line, for help texts and messages. */
    public static final String FORM = "YYYY-MM-DD";

    @Override
    public LocalDate convert(String value) {
        try {
            return LocalDate.parse(value.strip());
        } catch (DateTimeParseException e) {
            throw new CommandLine.TypeConversionException(
                    "'" + value + "' is not a day: use " + FORM + ", e.g. 2026-11-28");
        }
    }
}
