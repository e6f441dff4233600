package org.fraudpipe.scoring.train;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.util.EnumMap;
import java.util.Map;
import org.fraudpipe.scoring.train.UserSplit.Part;
import org.junit.jupiter.api.Test;

class UserSplitTest {

    @Test
    void aUserAlwaysLandsInTheSamePartForTheSameSeed() {
        UserSplit a = new UserSplit(0.2, 0.2, 42);
        UserSplit b = new UserSplit(0.2, 0.2, 42);
        for (int u = 0; u < 500; u++) {
            String user = String.format("u-%06d", u);
            assertThat(a.partOf(user)).isEqualTo(b.partOf(user));
        }
    }

    @Test
    void partsHaveRoughlyTheConfiguredShares() {
        UserSplit split = new UserSplit(0.2, 0.3, 7);
        Map<Part, Integer> n = new EnumMap<>(Part.class);
        for (int u = 0; u < 10_000; u++) {
            n.merge(split.partOf(String.format("u-%06d", u)), 1, Integer::sum);
        }
        assertThat(n.get(Part.HOLDOUT) / 10_000.0).isCloseTo(0.3, within(0.02));
        assertThat(n.get(Part.VALIDATION) / 10_000.0).isCloseTo(0.2, within(0.02));
        assertThat(n.get(Part.TRAIN) / 10_000.0).isCloseTo(0.5, within(0.02));
    }

    @Test
    void anotherSeedMovesUsers() {
        UserSplit a = new UserSplit(0.2, 0.2, 1);
        UserSplit b = new UserSplit(0.2, 0.2, 2);
        long moved = 0;
        for (int u = 0; u < 1000; u++) {
            String user = "u-" + u;
            moved += a.partOf(user) == b.partOf(user) ? 0 : 1;
        }
        assertThat(moved).isGreaterThan(300);
    }

    @Test
    void fractionsMustLeaveUsersForTraining() {
        assertThatThrownBy(() -> new UserSplit(0.5, 0.5, 1))
                .hasMessageContaining("leave users for training");
        assertThatThrownBy(() -> new UserSplit(0, 0.2, 1))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
