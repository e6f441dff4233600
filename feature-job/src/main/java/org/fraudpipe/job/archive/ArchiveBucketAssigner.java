package org.fraudpipe.job.archive;

import org.apache.avro.specific.SpecificRecord;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.flink.streaming.api.functions.sink.filesystem.BucketAssigner;
import org.apache.flink.streaming.api.functions.sink.filesystem.bucketassigners.SimpleVersionedStringSerializer;
import org.fraudpipe.schemas.archive.ArchiveStream;

/**
 * Puts each record of one archive stream into its hour partition, {@code date=YYYY-MM-DD/hour=HH}
 * relative to the stream's directory, as the contract decides ({@link ArchiveStream#partitionOf}):
 * by the record's own time (event time, window start, or a dead letter's arrival), never by the
 * time it happens to be written. So a record written hours late still lands in the partition a
 * reader of that hour looks in (as a new part file), and the partition does not depend on when the
 * job ran or restarted.
 *
 * @param <T> the stream's record class
 */
public final class ArchiveBucketAssigner<T extends SpecificRecord>
        implements BucketAssigner<T, String> {

    private static final long serialVersionUID = 1L;

    private final ArchiveStream stream;

    public ArchiveBucketAssigner(ArchiveStream stream) {
        this.stream = stream;
    }

    @Override
    public String getBucketId(T element, Context context) {
        return stream.partitionOf(element).path();
    }

    @Override
    public SimpleVersionedSerializer<String> getSerializer() {
        return SimpleVersionedStringSerializer.INSTANCE;
    }

    @Override
    public String toString() {
        return "ArchiveBucketAssigner{" + stream + "}";
    }
}
