/**
 * Deterministic replay ({@code ./fraud replay}): the feature job's one topology over a JSON Lines
 * file of transactions in arrival order, in a local MiniCluster, writing {@code features.jsonl},
 * {@code scores.jsonl}, {@code late.jsonl}, {@code dead-letters.jsonl} and {@code
 * transaction-scores.jsonl}. Same input and options, byte-identical files.
 *
 * <h2>How the output is made deterministic</h2>
 *
 * <ol>
 *   <li><b>One ordered input per window subtask.</b> The file is read by one non-splittable reader
 *       ({@link org.fraudpipe.job.replay.ReplayFileFormat}) at parallelism 1, with a watermark
 *       after every record (bounded out-of-orderness over windowable records, {@link
 *       org.fraudpipe.job.ingest.IngestWatermarks#perRecord}) and no periodic or idleness
 *       watermarks. The ingest router runs at the source's parallelism, chained. Every window
 *       subtask therefore reads one channel carrying the file's records and watermarks in file
 *       order: which records are on time, late within grace or too late, every pane and revision,
 *       and the watermark each one records, are functions of the file. They are also the same at
 *       any window parallelism, since a key's records and the watermarks reach its subtask in the
 *       same order either way.
 *   <li><b>No wall clock in the data.</b> A record's {@code arrivalTime} stands for processing time
 *       (future-dated check, {@code receivedAt}); a line without one uses its event time (so it is
 *       never future-dated); an unreadable line uses the latest arrival read before it. {@code
 *       emittedAt} and {@code detectedAt} of the windows come from the watermark ({@link
 *       org.fraudpipe.job.window.ProcessingTimeSource#WATERMARK}): in a replay there is no wall
 *       clock; they are the event-time progress at the firing. A transaction's {@code scoredAt} is
 *       the arrival it answers (scored at once; for a retry, the retry's arrival), and the
 *       per-transaction path sees the same per-record watermarks as the windows.
 *   <li><b>A canonical file order.</b> Sinks of parallel subtasks interleave arbitrarily, so they
 *       only stage records ({@link org.fraudpipe.job.replay.ReplaySinks}); after the job the client
 *       sorts each output by its key and then by the whole line ({@link
 *       org.fraudpipe.job.replay.ReplayOutput}) and writes it atomically.
 *   <li><b>An exact text form.</b> {@link org.fraudpipe.job.replay.AvroJson}: schema field order,
 *       ISO-8601 UTC instants, no locale, {@code \n} line ends.
 * </ol>
 *
 * <p>End of input: the file source ends with Flink's final watermark ({@code Long.MAX_VALUE}), so
 * windows still open at the end fire then, ON_TIME, with {@code watermark} and {@code emittedAt}
 * {@code +292278994-08-17T07:12:55.807Z}: "fired because the input ended".
 */
package org.fraudpipe.job.replay;
