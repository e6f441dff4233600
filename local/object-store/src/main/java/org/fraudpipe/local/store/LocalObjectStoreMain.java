package org.fraudpipe.local.store;

import java.util.Optional;

/**
 * The local object store's JVM: S3Proxy ({@code org.gaul.s3proxy.Main}) with the properties file
 * {@code LocalObjectStore} wrote (endpoint, credentials, the directory behind the buckets).
 *
 * <p>Usage: {@code LocalObjectStoreMain [--exit-with-parent <pid>] <s3proxy.properties>}
 *
 * <p>Invariant: with {@code --exit-with-parent}, this JVM never outlives that process, however the
 * parent ends: a watcher thread calls {@link System#exit}. Without it the store runs until it is
 * stopped (SIGTERM from {@code ./fraud s3 stop}). The credentials are in the properties file, never
 * on the command line, where {@code ps} would show them.
 */
public final class LocalObjectStoreMain {

    private LocalObjectStoreMain() {}

    public static void main(String[] args) throws Exception {
        String properties = null;
        Long parentPid = null;
        for (int i = 0; i < args.length; i++) {
            if ("--exit-with-parent".equals(args[i]) && i + 1 < args.length) {
                parentPid = Long.parseLong(args[++i]);
            } else if (properties == null) {
                properties = args[i];
            } else {
                usage("unexpected argument: " + args[i]);
            }
        }
        if (properties == null) {
            usage("missing the S3Proxy properties file");
        }
        if (parentPid != null) {
            watchParent(parentPid);
        }
        org.gaul.s3proxy.Main.main(new String[] {"--properties", properties});
    }

    private static void watchParent(long pid) {
        Optional<ProcessHandle> parent = ProcessHandle.of(pid);
        if (parent.isEmpty() || !parent.get().isAlive()) {
            System.err.println("parent process " + pid + " is already gone; not starting");
            System.exit(3);
        }
        parent.get()
                .onExit()
                .thenRun(
                        () -> {
                            System.err.println(
                                    "parent process " + pid + " exited; stopping the object store");
                            System.exit(0);
                        });
    }

    private static void usage(String problem) {
        System.err.println(problem);
        System.err.println(
                "usage: LocalObjectStoreMain [--exit-with-parent <pid>] <s3proxy.properties>");
        System.exit(2);
    }
}
