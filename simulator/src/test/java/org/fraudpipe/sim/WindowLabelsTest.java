package org.fraudpipe.sim;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.fraudpipe.sim.WindowLabels.WindowRef;
import org.junit.jupiter.api.Test;

class WindowLabelsTest {

    private static final Duration TEN_MIN = Duration.ofMinutes(10);

    private static Label label(String user, String eventTime, FraudPattern p, MalformedKind bad) {
        return new Label(
                "t-" + user + eventTime,
                user,
                Instant.parse(eventTime),
                Instant.parse(eventTime),
                1,
                p.isFraud(),
                p,
                p.isFraud() ? "b-000001" : null,
                false,
                false,
                false,
                bad != null,
                bad);
    }

    @Test
    void windowStartIsAlignedToTheEpoch() {
        assertThat(WindowLabels.windowStart(Instant.parse("2026-11-28T12:19:59.999Z"), TEN_MIN))
                .isEqualTo(Instant.parse("2026-11-28T12:10:00Z"));
        assertThat(WindowLabels.windowStart(Instant.parse("2026-11-28T12:20:00Z"), TEN_MIN))
                .isEqualTo(Instant.parse("2026-11-28T12:20:00Z"));
    }

    @Test
    void windowIsFraudulentIffItContainsAFraudTransaction() {
        List<Label> labels =
                List.of(
                        label("u-1", "2026-11-28T12:01:00Z", FraudPattern.NORMAL, null),
                        label("u-1", "2026-11-28T12:05:00Z", FraudPattern.ACCOUNT_TAKEOVER, null),
                        label("u-1", "2026-11-28T12:09:00Z", FraudPattern.ACCOUNT_TAKEOVER, null),
                        label("u-1", "2026-11-28T12:11:00Z", FraudPattern.NORMAL, null),
                        label("u-2", "2026-11-28T12:05:00Z", FraudPattern.NORMAL, null),
                        label(
                                "u-3",
                                "2026-11-28T12:05:00Z",
                                FraudPattern.NORMAL,
                                MalformedKind.BAD_JSON));
        assertThat(WindowLabels.fraudulentWindows(labels, TEN_MIN))
                .containsExactly(new WindowRef("u-1", Instant.parse("2026-11-28T12:00:00Z")));
    }
}
