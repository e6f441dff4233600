package org.fraudpipe.bench.kstreams;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import org.fraudpipe.schemas.avro.Transaction;

/**
 * The Kafka Streams peer's aggregate of one user's window: for each distinct transaction id the
 * payload of its first arrival (amount, device, merchant, country), plus the raw records seen. The
 * six features are derived from it. Written for this peer (it shares no code with the job's feature
 * core); the same duplicate rule: a retry of an id counts once, with the first payload.
 *
 * <p>Kafka Streams keeps aggregates as bytes in its (cached) RocksDB window store, so every update
 * reads and writes the whole aggregate: {@link #toBytes()} / {@link #fromBytes(byte[])} are a
 * compact binary format (no field names or class names).
 */
final class WindowAggregate {

    record Payload(long amountMinor, String deviceId, String merchantId, String country) {}

    private final LinkedHashMap<String, Payload> byId;
    private long recordsSeen;

    WindowAggregate() {
        this(new LinkedHashMap<>(), 0);
    }

    private WindowAggregate(LinkedHashMap<String, Payload> byId, long recordsSeen) {
        this.byId = byId;
        this.recordsSeen = recordsSeen;
    }

    /** Counts one record; its payload counts only if its id is new. Returns this aggregate. */
    WindowAggregate add(Transaction tx) {
        recordsSeen++;
        byId.putIfAbsent(
                tx.getTransactionId(),
                new Payload(
                        tx.getAmountMinor(),
                        tx.getDeviceId(),
                        tx.getMerchantId(),
                        tx.getCountry()));
        return this;
    }

    long txCount() {
        return byId.size();
    }

    long recordsSeen() {
        return recordsSeen;
    }

    /** {txCount, amountSum, amountMax, distinctDevices, distinctMerchants, distinctCountries}. */
    long[] features() {
        long sum = 0;
        long max = 0;
        Set<String> devices = new HashSet<>();
        Set<String> merchants = new HashSet<>();
        Set<String> countries = new HashSet<>();
        for (Payload p : byId.values()) {
            sum += p.amountMinor();
            max = Math.max(max, p.amountMinor());
            devices.add(p.deviceId());
            merchants.add(p.merchantId());
            countries.add(p.country());
        }
        return new long[] {
            byId.size(), sum, max, devices.size(), merchants.size(), countries.size()
        };
    }

    byte[] toBytes() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(16 + byId.size() * 96);
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeLong(recordsSeen);
            out.writeInt(byId.size());
            for (Map.Entry<String, Payload> e : byId.entrySet()) {
                Payload p = e.getValue();
                out.writeUTF(e.getKey());
                out.writeLong(p.amountMinor());
                out.writeUTF(p.deviceId());
                out.writeUTF(p.merchantId());
                out.writeUTF(p.country());
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return bytes.toByteArray();
    }

    static WindowAggregate fromBytes(byte[] data) {
        try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(data))) {
            long seen = in.readLong();
            int n = in.readInt();
            LinkedHashMap<String, Payload> byId = new LinkedHashMap<>(Math.max(4, n * 2));
            for (int i = 0; i < n; i++) {
                String id = in.readUTF();
                byId.put(id, new Payload(in.readLong(), in.readUTF(), in.readUTF(), in.readUTF()));
            }
            return new WindowAggregate(byId, seen);
        } catch (IOException e) {
            throw new UncheckedIOException("corrupt window aggregate", e);
        }
    }
}
