package org.fraudpipe.local;

import java.nio.file.Path;

/**
 * Test helper run in its own JVM by {@link LocalKafkaBrokerIT}: starts a broker tied to this JVM,
 * prints its pid, and waits to be killed.
 */
public final class BrokerStarterMain {

    static final String PID_PREFIX = "BROKER_PID=";

    private BrokerStarterMain() {}

    public static void main(String[] args) throws InterruptedException {
        LocalKafkaBroker broker =
                LocalKafkaBroker.start(
                        LocalKafkaBroker.Settings.forTests(Path.of(args[0])),
                        BrokerRuntime.fromSystemProperty());
        System.out.println(PID_PREFIX + broker.pid());
        System.out.flush();
        Thread.currentThread().join();
    }
}
