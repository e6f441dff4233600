/**
 * {@code ./fraud advise}: the lateness advisor. Chooses the job's watermark bound and allowed
 * lateness from recorded traffic (a replay input file, or the job's archive), with their price,
 * computed on the job's own semantics: the arrival-delay distribution ({@link
 * org.fraudpipe.tools.advise.DelayProfile}), every (bound, lateness) pair of a grid replayed over
 * the recorded arrival order ({@link org.fraudpipe.tools.advise.EventTimeModel}, with the job's
 * {@code FeatureWindowSpec}, {@code WindowAssignment} and ingest rules), what a score at arrival
 * misses ({@link org.fraudpipe.tools.advise.TrailingArrivals}), the recommendation ({@link
 * org.fraudpipe.tools.advise.Recommender}) and its outputs ({@link
 * org.fraudpipe.tools.advise.AdviceFiles}: advice.json and advice.html).
 */
package org.fraudpipe.tools.advise;
