package io.locksmith.redis;

import io.locksmith.spi.CallDeadline;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.JedisSocketFactory;
import redis.clients.jedis.exceptions.JedisConnectionException;

import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.util.concurrent.TimeUnit;

/**
 * Sockets for Jedis whose connect and reads end by the calling thread's {@link CallDeadline}: everything a provider
 * call waits for over Jedis (the pooled connection, a connect, every read of the script, its NOSCRIPT fallback, the
 * handshake of a new connection) then ends by one deadline. Jedis bounds each read by the socket time-out on its
 * own, so a call of several reads could last several time-outs; under a deadline every read waits at most until
 * the deadline. That makes the provider's {@code callTimeLimit()} a promise the transport keeps, and lets the shared
 * client call the provider on the caller's thread (no hand-off to another thread).
 *
 * <p>Threads without a deadline (the pool's evictor, the subscriber) keep Jedis' plain time-outs. Writes are not
 * bounded: a lock command is a few hundred bytes, which the socket's send buffer takes without waiting for the
 * server.
 */
final class DeadlineSockets {

    private DeadlineSockets() {
    }

    /**
     * Milliseconds left before this thread's deadline (at least 1, as a socket time-out of 0 means forever), at
     * most {@code cap}; {@code cap} if the thread has none.
     *
     * @throws SocketTimeoutException if the deadline has passed
     */
    static int remainingMillis(int cap) throws SocketTimeoutException {
        if (!CallDeadline.isSet()) {
            return cap;
        }
        long left = CallDeadline.remainingNanos(Long.MAX_VALUE);
        if (left <= 0) {
            throw new SocketTimeoutException("the call's deadline passed");
        }
        long millis = Math.max(1, TimeUnit.NANOSECONDS.toMillis(left + 999_999));
        return cap <= 0 ? (int) Math.min(Integer.MAX_VALUE, millis) : (int) Math.min(cap, millis);
    }

    /** Plain TCP sockets (no TLS) whose connect and reads end by the calling thread's deadline. */
    static final class SocketFactory implements JedisSocketFactory {
        private final HostAndPort address;
        private final int connectTimeoutMillis;
        private final int socketTimeoutMillis;

        SocketFactory(HostAndPort address, int connectTimeoutMillis, int socketTimeoutMillis) {
            this.address = address;
            this.connectTimeoutMillis = connectTimeoutMillis;
            this.socketTimeoutMillis = socketTimeoutMillis;
        }

        @Override
        public Socket createSocket() {
            DeadlineSocket socket = new DeadlineSocket();
            try {
                // As Jedis' own factory: no delay, keep-alive, the read time-out set before the connect.
                socket.setReuseAddress(true);
                socket.setKeepAlive(true);
                socket.setTcpNoDelay(true);
                socket.setSoLinger(true, 0);
                socket.setSoTimeout(socketTimeoutMillis);
                socket.connect(new InetSocketAddress(address.getHost(), address.getPort()),
                        remainingMillis(connectTimeoutMillis));
                return socket;
            } catch (IOException e) {
                try {
                    socket.close();
                } catch (IOException suppressed) {
                    e.addSuppressed(suppressed);
                }
                throw new JedisConnectionException("Failed to connect to " + address + ".", e);
            }
        }

        @Override
        public String toString() {
            return "deadline sockets to " + address;
        }
    }

    /** A socket whose reads wait no longer than the calling thread's deadline. */
    private static final class DeadlineSocket extends Socket {
        /** The read time-out Jedis asked for. */
        private volatile int timeoutMillis;
        /** The read time-out the socket has now: Jedis' own, or less under a deadline. */
        private volatile int appliedMillis;
        private InputStream input;

        @Override
        public synchronized void setSoTimeout(int timeout) throws SocketException {
            super.setSoTimeout(timeout);
            timeoutMillis = timeout;
            appliedMillis = timeout;
        }

        @Override
        public synchronized InputStream getInputStream() throws IOException {
            if (input == null) {
                input = new DeadlineInput(super.getInputStream());
            }
            return input;
        }

        private final class DeadlineInput extends FilterInputStream {
            DeadlineInput(InputStream in) {
                super(in);
            }

            private void bound() throws IOException {
                int bounded = remainingMillis(timeoutMillis);
                if (bounded != appliedMillis) {
                    DeadlineSocket.super.setSoTimeout(bounded);
                    appliedMillis = bounded;
                }
            }

            @Override
            public int read() throws IOException {
                bound();
                return super.read();
            }

            @Override
            public int read(byte[] buffer, int offset, int length) throws IOException {
                bound();
                return super.read(buffer, offset, length);
            }
        }
    }
}
