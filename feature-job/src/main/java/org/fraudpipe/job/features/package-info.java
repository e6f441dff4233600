/**
 * The feature core: what the features of one user over one window are, as I/O-free code shared by
 * the streaming job, the batch parity check and training export.
 *
 * <ul>
 *   <li>{@link org.fraudpipe.job.features.FeatureAggregator}: the one {@code AggregateFunction};
 *       {@link org.fraudpipe.job.features.FeatureValues}: its immutable result.
 *   <li>{@link org.fraudpipe.job.features.FeatureAccumulator}: per-window state; a {@code
 *       transactionId} counts once, with the first-arrived payload, and ids that arrived with
 *       conflicting payloads are recorded; exact merge.
 *   <li>{@link org.fraudpipe.job.features.FeatureAccumulatorSerializer}: its explicit, compact
 *       Flink serializer (no Kryo, no reflection); {@link
 *       org.fraudpipe.job.features.FeatureAccumulatorSerializerSnapshot} versions its format and
 *       migrates state of older formats.
 *   <li>{@link org.fraudpipe.job.features.WindowAssignment}: epoch-aligned tumbling windows,
 *       identical to Flink's {@code TumblingEventTimeWindows} (tested against it).
 * </ul>
 *
 * <p>Tested against a deliberately naive oracle on random out-of-order input with duplicates
 * ({@code FeatureAggregatorPropertyTest}).
 */
package org.fraudpipe.job.features;
