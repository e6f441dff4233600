package org.fraudpipe.local.broker;

import java.util.Optional;

/**
 * Entry point of the local broker JVM: runs {@code kafka.Kafka} (KRaft, combined broker+controller)
 * on the given {@code server.properties}, optionally tied to the life of the process that started
 * it.
 *
 * <p>Usage: {@code LocalBrokerMain [--exit-with-parent <pid>] <server.properties>}
 *
 * <p>Invariant: with {@code --exit-with-parent}, this JVM never outlives that process, however the
 * parent ends (normal exit, crash, {@code kill -9}): a watcher thread calls {@link System#exit},
 * which runs Kafka's own shutdown hook (controlled shutdown, logs flushed). Without it the broker
 * runs until it is stopped (SIGTERM from {@code ./fraud kafka stop}).
 */
public final class LocalBrokerMain {

    private LocalBrokerMain() {}

    public static void main(String[] args) {
        String propertiesFile = null;
        Long parentPid = null;
        for (int i = 0; i < args.length; i++) {
            if ("--exit-with-parent".equals(args[i]) && i + 1 < args.length) {
                parentPid = Long.parseLong(args[++i]);
            } else if (propertiesFile == null) {
                propertiesFile = args[i];
            } else {
                usage("unexpected argument: " + args[i]);
            }
        }
        if (propertiesFile == null) {
            usage("missing server.properties");
        }
        if (parentPid != null) {
            watchParent(parentPid);
        }
        kafka.Kafka.main(new String[] {propertiesFile});
    }

    private static void watchParent(long pid) {
        Optional<ProcessHandle> parent = ProcessHandle.of(pid);
        if (parent.isEmpty() || !parent.get().isAlive()) {
            System.err.println(
                    "parent process " + pid + " is already gone; not starting the broker");
            System.exit(3);
        }
        parent.get()
                .onExit()
                .thenRun(
                        () -> {
                            System.err.println(
                                    "parent process " + pid + " exited; shutting the broker down");
                            System.exit(0);
                        });
    }

    private static void usage(String problem) {
        System.err.println(problem);
        System.err.println("usage: LocalBrokerMain [--exit-with-parent <pid>] <server.properties>");
        System.exit(2);
    }
}
