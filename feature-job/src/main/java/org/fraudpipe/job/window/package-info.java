/**
 * The windowing stage of the feature job: {@link org.fraudpipe.job.window.FeatureWindows#apply}
 * keys transactions by user and windows them in tumbling event-time windows with allowed lateness,
 * producing one {@code FeatureRecord} per pane and one {@code LateRecord} per too-late transaction.
 *
 * <h2>The three fates of a record, exactly</h2>
 *
 * <p>Flink's watermark {@code W} promises no more records with timestamp {@code <= W}, so a window
 * {@code [start, end)} is complete at {@code W >= end - 1}, not {@code W >= end}. For a record of
 * window {@code [start, end)} reaching the window operator at watermark {@code W}, with allowed
 * lateness {@code L}:
 *
 * <pre>
 *   W &lt; end - 1               on time: counted in the ON_TIME pane (revision 0), even if
 *                               its timestamp is behind W
 *   end - 1 &lt;= W &lt; end - 1 + L  late within grace: counted, the window re-fires at once
 *                               (LATE pane, revision + 1)
 *   W &gt;= end - 1 + L           too late: not counted; LateRecord (TOO_LATE, the window it
 *                               missed, the watermark, lateByMillis = W - eventTime)
 * </pre>
 *
 * <p>So the design's "{@code wm >= end + L}" is, to the millisecond, {@code wm >= end - 1 + L}
 * ({@link org.fraudpipe.job.window.FeatureWindowSpec#isTooLate}). At {@code W >= end - 1 + L} the
 * window's state entry (accumulator and pane bookkeeping) and its timer are gone.
 *
 * <h2>Panes</h2>
 *
 * <p>A window whose first record arrives within grace (after the watermark passed its end) has no
 * ON_TIME pane: its first pane is revision 0 with timing LATE and counts that record as late. A
 * late duplicate re-fires with unchanged features and one more late record included. In Flink BATCH
 * mode every window fires exactly once: revision 0, ON_TIME, watermark {@code Long.MAX_VALUE} (the
 * end-of-input watermark); compare features, not watermarks.
 */
package org.fraudpipe.job.window;
