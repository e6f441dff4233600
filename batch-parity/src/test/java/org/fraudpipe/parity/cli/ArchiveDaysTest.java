package org.fraudpipe.parity.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import org.fraudpipe.parity.ParityPeriod;
import org.junit.jupiter.api.Test;

class ArchiveDaysTest {

    private static final LocalDate D1 = LocalDate.parse("2026-11-28");
    private static final LocalDate D2 = LocalDate.parse("2026-11-29");

    @Test
    void aDayOrARangeIsThePeriodAndItsLabel() {
        assertThat(new ArchiveDays(D1, null, null).period()).isEqualTo(ParityPeriod.days(D1, D1));
        assertThat(new ArchiveDays(D1, null, null).label("-")).isEqualTo("2026-11-28");
        assertThat(new ArchiveDays(null, D1, D2).period()).isEqualTo(ParityPeriod.days(D1, D2));
        assertThat(new ArchiveDays(null, D1, D2).label("-")).isEqualTo("2026-11-28..2026-11-29");
        assertThat(new ArchiveDays(null, null, null).period()).isEqualTo(ParityPeriod.UNBOUNDED);
        assertThat(new ArchiveDays(null, null, null).label("all windows")).isEqualTo("all windows");
        assertThat(new ArchiveDays(null, null, null).given()).isFalse();
        assertThat(new ArchiveDays(null, null, D2).given()).isTrue();
    }

    @Test
    void halfARangeOrNoDayForAnArchiveIsMissing() {
        List<String> missing = new ArrayList<>();
        new ArchiveDays(null, D1, null).addMissing(missing, false);
        new ArchiveDays(null, null, D2).addMissing(missing, false);
        new ArchiveDays(null, null, null).addMissing(missing, false);
        new ArchiveDays(null, null, null).addMissing(missing, true);
        assertThat(missing)
                .containsExactly(
                        "--to YYYY-MM-DD (with --from)",
                        "--from YYYY-MM-DD (with --to)",
                        "--date YYYY-MM-DD or --from/--to (which days of --archive)");
    }

    @Test
    void aDayWithARangeOrARangeBackwardsIsAUsageError() {
        assertThatThrownBy(() -> new ArchiveDays(D1, D1, D2).check(IllegalArgumentException::new))
                .hasMessage("give either --date or --from/--to, not both");
        assertThatThrownBy(() -> new ArchiveDays(null, D2, D1).check(IllegalArgumentException::new))
                .hasMessage("--to 2026-11-28 is before --from 2026-11-29");
        new ArchiveDays(null, D1, D1).check(IllegalArgumentException::new);
    }
}
