package org.fraudpipe.schemas.registry;

import java.util.List;
import org.apache.avro.Schema;
import org.apache.avro.SchemaCompatibility;
import org.apache.avro.SchemaCompatibility.Incompatibility;
import org.apache.avro.SchemaCompatibility.SchemaCompatibilityType;
import org.apache.avro.SchemaCompatibility.SchemaPairCompatibility;

/**
 * Avro schema resolution, as the registry's compatibility levels ({@link CompatibilityLevel}) and
 * the decoder use it: can a reader with schema R read data written with schema W? Wraps {@link
 * SchemaCompatibility#checkReaderWriterCompatibility} and turns its answer into readable lines.
 */
public final class AvroCompatibility {
    private AvroCompatibility() {}

    /**
     * Why {@code reader} cannot read data written with {@code writer}: one line per incompatibility
     * ({@code TYPE at /location: message}); empty if it can.
     */
    public static List<String> readerIncompatibilities(Schema reader, Schema writer) {
        SchemaPairCompatibility result =
                SchemaCompatibility.checkReaderWriterCompatibility(reader, writer);
        if (result.getType() == SchemaCompatibilityType.COMPATIBLE) {
            return List.of();
        }
        List<Incompatibility> incompatibilities = result.getResult().getIncompatibilities();
        if (incompatibilities.isEmpty()) {
            return List.of(result.getType() + ": " + result.getDescription());
        }
        return incompatibilities.stream()
                .map(i -> i.getType() + " at " + i.getLocation() + ": " + i.getMessage())
                .toList();
    }
}
