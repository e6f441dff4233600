package org.fraudpipe.parity;

import java.io.IOException;
import org.apache.avro.file.DataFileStream;
import org.apache.avro.specific.SpecificDatumReader;
import org.apache.avro.specific.SpecificRecordBase;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.connector.file.src.reader.SimpleStreamFormat;
import org.apache.flink.connector.file.src.reader.StreamFormat;
import org.apache.flink.core.fs.FSDataInputStream;
import org.apache.flink.formats.avro.typeutils.AvroTypeInfo;

/**
 * Reads Avro container files (the archive's part files) as a {@link
 * org.apache.flink.connector.file.src.FileSource} format: one file per split, records in file
 * order, read with the current generated class (so older writer schemas resolve as in Kafka).
 */
public final class AvroContainerFormat<T extends SpecificRecordBase> extends SimpleStreamFormat<T> {

    private static final long serialVersionUID = 1L;

    private final Class<T> type;

    public AvroContainerFormat(Class<T> type) {
        this.type = type;
    }

    @Override
    public StreamFormat.Reader<T> createReader(Configuration config, FSDataInputStream stream)
            throws IOException {
        DataFileStream<T> records = new DataFileStream<>(stream, new SpecificDatumReader<>(type));
        return new StreamFormat.Reader<>() {
            @Override
            public T read() {
                return records.hasNext() ? records.next() : null;
            }

            @Override
            public void close() throws IOException {
                records.close();
            }
        };
    }

    @Override
    public TypeInformation<T> getProducedType() {
        return new AvroTypeInfo<>(type);
    }
}
