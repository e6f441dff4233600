package org.fraudpipe.parity;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class ParityOutputTest {

    private static ParityOutput partial(int subtask, int subtasks) {
        ParityOutput o = new ParityOutput();
        o.windowReport = new byte[0];
        o.subtask = subtask;
        o.subtasks = subtasks;
        return o;
    }

    @Test
    void everySubtasksPartialReportOnceIsComplete() {
        ParityOutput.Completeness c = new ParityOutput.Completeness("window");
        c.received(partial(2, 3));
        c.received(partial(0, 3));
        c.received(partial(1, 3));
        assertThatCode(c::verify).doesNotThrowAnyException();
    }

    @Test
    void aPartialReportLostOnTheWayFailsTheRunInsteadOfReportingLess() {
        ParityOutput.Completeness c = new ParityOutput.Completeness("window");
        c.received(partial(0, 3));
        c.received(partial(2, 3));
        assertThatThrownBy(c::verify)
                .hasMessageContaining("incomplete: 2 of 3 partial window reports");
        assertThatThrownBy(new ParityOutput.Completeness("transaction")::verify)
                .hasMessageContaining("no partial transaction report");
    }

    @Test
    void aPartialReportTwiceIsRefused() {
        ParityOutput.Completeness c = new ParityOutput.Completeness("window");
        c.received(partial(1, 2));
        assertThatThrownBy(() -> c.received(partial(1, 2))).hasMessageContaining("twice");
    }
}
