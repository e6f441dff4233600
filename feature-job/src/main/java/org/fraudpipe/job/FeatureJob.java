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
        int exit = JobCommand.commandLine().execute(args);
        if (exit != 0) {
            System.exit(exit);
        }
    }
}
