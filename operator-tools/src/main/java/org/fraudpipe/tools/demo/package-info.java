/**
 * {@code ./fraud demo}: the whole pipeline on one machine in one command. A real Kafka broker and
 * schema registry (tied to the demo's JVM), the streaming feature job in a local MiniCluster
 * (RocksDB, checkpoints, exactly-once sinks, archive), the simulator's traffic published paced by
 * arrival time, live progress from the job's own counters, then stop-with-savepoint and drain, the
 * parity check over what the job archived, and a clean shutdown.
 *
 * <p>Why this package lives in {@code operator-tools}: the demo ends with the parity check, and
 * {@code batch-parity} depends on {@code feature-job} (its window stage, archive format, scorer),
 * not the other way round. Putting the orchestrator in {@code feature-job} would need a dependency
 * cycle or a copy of the parity code; here it reuses both modules as they are: {@link
 * org.fraudpipe.local.LocalKafka} (as {@code ./fraud kafka start}), {@link
 * org.fraudpipe.job.KafkaFeatureJob} (as {@code ./fraud job}), the simulator and {@link
 * org.fraudpipe.sim.TransactionPublisher} (as {@code ./fraud simulate --bootstrap-servers}), and
 * {@link org.fraudpipe.parity.cli.ParityCommand} (as {@code ./fraud parity}).
 */
package org.fraudpipe.tools.demo;
