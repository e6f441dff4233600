/**
 * {@code ./fraud rehearsal}: the production rehearsal. The pipeline on a Flink session cluster of
 * several processes ({@code deploy/flink-session}), on object storage, against the secured broker
 * and registry, through a TaskManager crash and two savepoint rescales, then judged from outside
 * with the soak's checker and {@code ./fraud parity}. A run, not a test: {@code mvn verify} covers
 * the same guarantees in smaller forms (SoakIT, DemoIT's secured run, ObjectStoreIT).
 */
package org.fraudpipe.tools.rehearsal;
