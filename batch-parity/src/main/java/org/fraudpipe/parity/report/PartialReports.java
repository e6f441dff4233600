package org.fraudpipe.parity.report;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.io.ObjectStreamClass;
import java.io.Serializable;
import java.io.UncheckedIOException;

/**
 * The wire form of a partial report: what one judging subtask folded, handed to the client as bytes
 * and merged there ({@link ReportBuilder}, {@link TransactionReportBuilder}). Java serialization,
 * resolved through this module's class loader (a cluster's user-code loader), since a partial only
 * travels within one run of one build.
 */
final class PartialReports {

    private PartialReports() {}

    static byte[] toBytes(Serializable partial) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
            out.writeObject(partial);
        } catch (IOException e) {
            throw new UncheckedIOException(
                    "cannot serialize a partial " + partial.getClass().getSimpleName(), e);
        }
        return bytes.toByteArray();
    }

    static <T> T fromBytes(byte[] bytes, Class<T> type) {
        try (ObjectInputStream in =
                new ObjectInputStream(new ByteArrayInputStream(bytes)) {
                    @Override
                    protected Class<?> resolveClass(ObjectStreamClass desc)
                            throws IOException, ClassNotFoundException {
                        try {
                            return Class.forName(
                                    desc.getName(), false, PartialReports.class.getClassLoader());
                        } catch (ClassNotFoundException e) {
                            return super.resolveClass(desc);
                        }
                    }
                }) {
            return type.cast(in.readObject());
        } catch (IOException | ClassNotFoundException e) {
            throw new IllegalStateException("cannot read a partial " + type.getSimpleName(), e);
        }
    }
}
