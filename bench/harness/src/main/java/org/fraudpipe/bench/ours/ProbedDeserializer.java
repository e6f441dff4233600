package org.fraudpipe.bench.ours;

import java.nio.charset.StandardCharsets;
import org.apache.flink.api.common.serialization.DeserializationSchema;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.connector.kafka.source.reader.deserializer.KafkaRecordDeserializationSchema;
import org.apache.flink.util.Collector;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.fraudpipe.bench.probe.RunProbe;
import org.fraudpipe.job.ingest.IngestedRecord;

/**
 * The job's own Kafka deserializer with the benchmark's {@link RunProbe} in front: counts every
 * record (the same measuring point as the Flink SQL peer's) and notes the first flush record, by
 * its key (the UTF-8 user id), before the job decodes it. Nothing else changes.
 */
final class ProbedDeserializer implements KafkaRecordDeserializationSchema<IngestedRecord> {

    private static final long serialVersionUID = 1L;
    private static final byte[] FLUSH = RunProbe.FLUSH_USER_PREFIX.getBytes(StandardCharsets.UTF_8);

    private final KafkaRecordDeserializationSchema<IngestedRecord> job;

    ProbedDeserializer(KafkaRecordDeserializationSchema<IngestedRecord> job) {
        this.job = job;
    }

    @Override
    public void open(DeserializationSchema.InitializationContext context) throws Exception {
        job.open(context);
    }

    @Override
    public void deserialize(ConsumerRecord<byte[], byte[]> record, Collector<IngestedRecord> out)
            throws java.io.IOException {
        RunProbe.record();
        if (isFlush(record.key())) {
            RunProbe.marker();
        }
        job.deserialize(record, out);
    }

    private static boolean isFlush(byte[] key) {
        if (key == null || key.length < FLUSH.length) {
            return false;
        }
        for (int i = 0; i < FLUSH.length; i++) {
            if (key[i] != FLUSH[i]) {
                return false;
            }
        }
        return true;
    }

    @Override
    public TypeInformation<IngestedRecord> getProducedType() {
        return job.getProducedType();
    }
}
