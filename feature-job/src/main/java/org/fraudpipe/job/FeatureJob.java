package org.fraudpipe.job;

import org.fraudpipe.job.cli.JobCommand;

/**
 * Entry point of the streaming job on a Flink cluster: {@code flink run -c
 * org.fraudpipe.job.FeatureJob feature-job-<version>-job.jar --bootstrap-servers ...
 * --schema-registry-url ...}. Takes the same options as {@code ./fraud job} ({@code --help} lists
 * them).
 */
public final class FeatureJob {

    private FeatureJob() {}

    public static void main(String[] args) {
        if (org.fraudpipe.job.topology.JobEnvironment.runsLocally()) {
            // A JVM of its own locally (the split's decision job): its file systems (s3p://,
            // s3a://) as ./fraud's own. Under flink run the cluster's client has set them up.
            org.fraudpipe.job.topology.JobEnvironment.initializeFileSystems();
        }
        int exit = JobCommand.commandLine().execute(args);
        if (exit != 0) {
            System.exit(exit);
        }
    }
}
