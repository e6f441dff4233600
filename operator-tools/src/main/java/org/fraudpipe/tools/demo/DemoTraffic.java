package org.fraudpipe.tools.demo;

import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.fraudpipe.schemas.Topic;
import org.fraudpipe.schemas.avro.Transaction;
import org.fraudpipe.schemas.security.ClientProperties;
import org.fraudpipe.schemas.wire.TopicSerdes;
import org.fraudpipe.sim.SimulatedRecord;
import org.fraudpipe.sim.SimulationConfig;
import org.fraudpipe.sim.SimulationStats;
import org.fraudpipe.sim.TransactionPublisher;
import org.fraudpipe.sim.TransactionSimulator;

/**
 * The demo's traffic (and the production rehearsal's): the simulator's records published to the
 * transactions topic by {@link TransactionPublisher}, as {@code ./fraud simulate
 * --bootstrap-servers ... --speedup X} does, paced by arrival time. Runs on its own thread; the
 * counters are read by the progress line.
 *
 * <p>Only records arriving within the simulated span are published: later arrivals (the tail of
 * hours-late records) would be due after the demo's duration.
 */
public final class DemoTraffic implements Runnable {

    private final SimulationConfig simulation;
    private final String bootstrapServers;
    private final String schemaRegistryUrl;
    private final double speedup;
    private final ClientProperties client;

    private final AtomicLong sent = new AtomicLong();
    private final AtomicLong clock = new AtomicLong(Long.MIN_VALUE);
    private final SimulationStats stats = new SimulationStats();
    private volatile TransactionPublisher.Result result;
    private volatile Exception failure;

    public DemoTraffic(
            SimulationConfig simulation,
            String bootstrapServers,
            String schemaRegistryUrl,
            ClientProperties client,
            double speedup) {
        this.client = client;
        this.simulation = simulation;
        this.bootstrapServers = bootstrapServers;
        this.schemaRegistryUrl = schemaRegistryUrl;
        this.speedup = speedup;
    }

    @Override
    public void run() {
        long end = simulation.end().toEpochMilli();
        try (TransactionPublisher publisher =
                new TransactionPublisher(
                        new KafkaProducer<>(
                                TransactionPublisher.producerProperties(bootstrapServers, client)),
                        Topic.TRANSACTIONS.defaultName(),
                        TopicSerdes.forRegistry(client.registryConfig(schemaRegistryUrl))
                                .valueSerializer(Topic.TRANSACTIONS, Transaction.class),
                        speedup)) {
            TransactionSimulator simulator = new TransactionSimulator(simulation);
            while (simulator.hasNext() && !Thread.currentThread().isInterrupted()) {
                SimulatedRecord r = simulator.next();
                long arrival = r.arrivalTime().toEpochMilli();
                if (arrival >= end) {
                    break;
                }
                publisher.send(r.toPublishItem());
                stats.accept(r);
                sent.incrementAndGet();
                clock.set(arrival);
            }
            result = publisher.finish();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (Exception e) {
            failure = e;
        }
    }

    /** Records handed to Kafka so far. */
    public long sent() {
        return sent.get();
    }

    /** The arrival time of the last record sent (the traffic's clock), or Long.MIN_VALUE. */
    public long clock() {
        return clock.get();
    }

    /** After the thread ended: what Kafka acknowledged, or null if it was interrupted or failed. */
    public TransactionPublisher.Result result() {
        return result;
    }

    /** After the thread ended: why it failed, or null. */
    public Exception failure() {
        return failure;
    }

    /** After the thread ended: the mix of what was published. */
    public SimulationStats stats() {
        return stats;
    }
}
