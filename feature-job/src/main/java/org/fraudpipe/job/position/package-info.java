/**
 * Where each reader of the transactions topic stands: the window path's source (which also feeds
 * the archive of received transactions and dead letters) and the per-transaction path's. Two
 * readers of one topic are at two positions; a drain ends both streams where they stand, so what
 * one had read and the other had not is in one path's output and not the other's.
 *
 * <ul>
 *   <li>{@link ReadPositionsOperator}: chained to a reader, tracks the offset after the last record
 *       it handed on, per partition; exposes it as a metric and an accumulator, and records it in
 *       the archive at every checkpoint and at the end of input.
 *   <li>{@link ReadPositions}: one reading of those positions (accumulators, or archived records),
 *       per reader and partition, and what they say about a record.
 *   <li>{@link DrainGate}: before a drain, waits until every reader has read up to the end offsets
 *       of what was published, or fails naming the reader and partitions behind.
 * </ul>
 */
package org.fraudpipe.job.position;
