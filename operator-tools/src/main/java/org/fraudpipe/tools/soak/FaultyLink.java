package org.fraudpipe.tools.soak;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A TCP proxy on loopback between the job and the broker, that the soak's nemesis turns bad: the
 * network faults of the campaign without an external tool. The broker advertises this proxy's port
 * on a listener of its own, so every connection of the job (bootstrap and per-broker alike) runs
 * through it, while the traffic's publisher and the checker use the broker's direct listener.
 *
 * <p>Modes (one at a time, {@link #set}):
 *
 * <ul>
 *   <li>{@link Mode#PASS}: bytes flow both ways as they come;
 *   <li>{@link Mode#STALL}: connections stay open but nothing is forwarded (a partition where TCP
 *       does not notice: the clients' request timeouts do);
 *   <li>{@link Mode#CUT}: every connection is closed and new ones are closed at once (a refused
 *       network: the clients reconnect with backoff);
 *   <li>{@link Mode#SLOW}: what the broker sends (its responses, acknowledgements among them) is
 *       held {@code delayMillis} before it is forwarded.
 * </ul>
 */
final class FaultyLink implements AutoCloseable {

    enum Mode {
        PASS,
        STALL,
        CUT,
        SLOW
    }

    private static final int BUFFER = 64 * 1024;

    private final ServerSocket server;
    private final int upstreamPort;
    private final List<Socket> sockets = new CopyOnWriteArrayList<>();
    private final Object gate = new Object();
    private final AtomicLong connections = new AtomicLong();
    private volatile Mode mode = Mode.PASS;
    private volatile long delayMillis;
    private volatile boolean closed;

    /** A proxy on a free loopback port to {@code localhost:upstreamPort}, accepting at once. */
    FaultyLink(int upstreamPort) throws IOException {
        this.upstreamPort = upstreamPort;
        this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread accept = new Thread(this::accept, "soak-link-accept");
        accept.setDaemon(true);
        accept.start();
    }

    /** The port the job connects to. */
    int port() {
        return server.getLocalPort();
    }

    /** Connections accepted so far. */
    long connections() {
        return connections.get();
    }

    /** Switches the mode ({@code delayMillis} only matters for {@link Mode#SLOW}). */
    void set(Mode next, long delayMillis) {
        this.delayMillis = delayMillis;
        this.mode = next;
        if (next == Mode.CUT) {
            for (Socket s : sockets) {
                closeQuietly(s);
            }
            sockets.clear();
        }
        synchronized (gate) {
            gate.notifyAll();
        }
    }

    Mode mode() {
        return mode;
    }

    private void accept() {
        while (!closed) {
            Socket client;
            try {
                client = server.accept();
            } catch (IOException e) {
                return; // closed
            }
            if (mode == Mode.CUT) {
                closeQuietly(client);
                continue;
            }
            Socket upstream = new Socket();
            try {
                upstream.connect(
                        new InetSocketAddress(InetAddress.getLoopbackAddress(), upstreamPort));
            } catch (IOException e) {
                closeQuietly(client);
                closeQuietly(upstream);
                continue; // the broker is down: the client sees a closed connection, as it would
            }
            connections.incrementAndGet();
            sockets.add(client);
            sockets.add(upstream);
            pump(client, upstream, false, "soak-link-up");
            pump(upstream, client, true, "soak-link-down");
        }
    }

    /** Copies {@code from} to {@code to} on a thread of its own, obeying the mode. */
    private void pump(Socket from, Socket to, boolean fromBroker, String name) {
        Thread t =
                new Thread(
                        () -> {
                            byte[] buffer = new byte[BUFFER];
                            try (InputStream in = from.getInputStream();
                                    OutputStream out = to.getOutputStream()) {
                                for (int n = in.read(buffer); n >= 0; n = in.read(buffer)) {
                                    awaitPassable(fromBroker);
                                    out.write(buffer, 0, n);
                                    out.flush();
                                }
                            } catch (IOException | InterruptedException e) {
                                // a closed or cut connection: the other direction ends too
                            } finally {
                                closeQuietly(from);
                                closeQuietly(to);
                                sockets.remove(from);
                                sockets.remove(to);
                            }
                        },
                        name);
        t.setDaemon(true);
        t.start();
    }

    /** Holds a chunk while stalled, delays the broker's while slow, fails it while cut. */
    private void awaitPassable(boolean fromBroker) throws InterruptedException, SocketException {
        while (true) {
            Mode m = mode;
            if (m == Mode.CUT || closed) {
                throw new SocketException("cut");
            }
            if (m == Mode.STALL) {
                synchronized (gate) {
                    if (mode == Mode.STALL) {
                        gate.wait(100);
                    }
                }
                continue;
            }
            if (m == Mode.SLOW && fromBroker) {
                Thread.sleep(delayMillis);
            }
            return;
        }
    }

    private static void closeQuietly(Socket s) {
        try {
            s.close();
        } catch (IOException ignored) {
            // closing anyway
        }
    }

    @Override
    public void close() {
        closed = true;
        try {
            server.close();
        } catch (IOException ignored) {
            // closing anyway
        }
        for (Socket s : sockets) {
            closeQuietly(s);
        }
        synchronized (gate) {
            gate.notifyAll();
        }
    }
}
