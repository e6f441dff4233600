package org.fraudpipe.job.topology;

import org.apache.flink.streaming.api.datastream.DataStream;
import org.fraudpipe.schemas.avro.ArchivedModelEvent;
import org.fraudpipe.schemas.avro.ArchivedTransaction;
import org.fraudpipe.schemas.avro.ReadPosition;

/**
 * Where the job archives what it received and what it served, for the batch parity check and
 * training export: a second set of {@link OutputSinks} (features, scores, late records, dead
 * letters and transaction scores, attached to the very streams the output sinks get) plus the
 * transactions received.
 *
 * <p>Why an explicit second argument of {@link FeatureJobTopology#build} rather than a decorator
 * around the output sinks: the received transactions are not an output of the job, so a decorator
 * would still need a side door for them; and with both sets of sinks attached in the topology, one
 * look at {@link FeatureJobTopology} shows everything the job writes, in Kafka, replay files or the
 * archive alike. Implementations: {@link org.fraudpipe.job.archive.FileArchive}; tests may collect.
 */
public interface Archive extends OutputSinks {

    /**
     * Every valid transaction received, quarantined (future-dated) ones included, once, with where
     * and when it arrived. Dead letters are not in it: they are archived by {@link #deadLetters}.
     */
    void transactions(DataStream<ArchivedTransaction> received);

    /**
     * Where each reader of the transactions topic stood, at every checkpoint and at the end of
     * input ({@link org.fraudpipe.job.position.ReadPositionsOperator}): how the parity check tells
     * a record one path had not read yet from one it lost.
     */
    void readPositions(DataStream<ReadPosition> positions);

    /**
     * Every record of the model registry topic, once (a restart without a checkpoint may write one
     * again: readers keep one per offset): what the parity check rebuilds the registry from, so
     * that each record is re-scored by the release that served it.
     */
    void modelEvents(DataStream<ArchivedModelEvent> events);
}
