package org.fraudpipe.schemas.wire;

import java.util.concurrent.atomic.AtomicInteger;
import org.apache.avro.Schema;
import org.fraudpipe.schemas.registry.CompatibilityLevel;
import org.fraudpipe.schemas.registry.RegisteredSchema;
import org.fraudpipe.schemas.registry.SchemaNotFoundException;
import org.fraudpipe.schemas.registry.SchemaRegistryClient;

/**
 * A registry that forwards to another one, counts the calls, and shifts every id by a fixed offset
 * (so tests can see ids that need all four bytes of the header).
 */
class CountingRegistry implements SchemaRegistryClient {
    final AtomicInteger registers = new AtomicInteger();
    final AtomicInteger lookups = new AtomicInteger();
    private final SchemaRegistryClient inner;
    private final int idOffset;

    CountingRegistry(SchemaRegistryClient inner, int idOffset) {
        this.inner = inner;
        this.idOffset = idOffset;
    }

    @Override
    public String url() {
        return inner.url();
    }

    @Override
    public int register(String subject, Schema schema) {
        registers.incrementAndGet();
        return inner.register(subject, schema) + idOffset;
    }

    @Override
    public Schema getSchemaById(int id) {
        lookups.incrementAndGet();
        if (id - idOffset < 1) {
            throw new SchemaNotFoundException(id, url(), null);
        }
        return inner.getSchemaById(id - idOffset);
    }

    @Override
    public RegisteredSchema latestSchema(String subject) {
        RegisteredSchema latest = inner.latestSchema(subject);
        return new RegisteredSchema(
                subject, latest.id() + idOffset, latest.version(), latest.schema());
    }

    @Override
    public boolean testCompatibility(String subject, Schema schema) {
        return inner.testCompatibility(subject, schema);
    }

    @Override
    public CompatibilityLevel compatibilityLevel(String subject) {
        return inner.compatibilityLevel(subject);
    }

    @Override
    public void setCompatibilityLevel(String subject, CompatibilityLevel level) {
        inner.setCompatibilityLevel(subject, level);
    }
}
