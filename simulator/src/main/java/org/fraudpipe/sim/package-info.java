/**
 * The transaction simulator: labelled, realistic card-transaction traffic in arrival order, the
 * replay file format, and publishing to Kafka.
 *
 * <ul>
 *   <li>{@link org.fraudpipe.sim.TransactionSimulator}: pure, deterministic generator of {@link
 *       org.fraudpipe.sim.SimulatedRecord}s (transaction or malformed payload, arrival time, {@link
 *       org.fraudpipe.sim.Label}) from a {@link org.fraudpipe.sim.SimulationConfig}; arrival delays
 *       from {@link org.fraudpipe.sim.DelayModel}.
 *   <li>{@link org.fraudpipe.schemas.json.TransactionJson}: the replay format (JSON Lines, one
 *       transaction with its {@code arrivalTime} per line), canonical writing and strict,
 *       line-numbered reading; also the replay job's input format. {@link
 *       org.fraudpipe.sim.LabelJson}: the labels file.
 *   <li>{@link org.fraudpipe.sim.WindowLabels}: the rule that labels feature windows for training
 *       (a window is fraudulent iff it contains a fraud transaction).
 *   <li>{@link org.fraudpipe.sim.TransactionPublisher}: sends records to the transactions topic
 *       with an injected value serializer, malformed payloads as raw bytes, paced by arrival time.
 * </ul>
 *
 * <p>Determinism: the same configuration gives the same records and the same bytes in every file,
 * on every JVM and platform (seeded {@link java.util.SplittableRandom}, {@link StrictMath},
 * locale-free formatting, no hash-order iteration, no wall clock). See {@code docs/SIMULATOR.md}.
 */
package org.fraudpipe.sim;
