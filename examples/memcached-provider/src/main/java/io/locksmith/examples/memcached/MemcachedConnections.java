package io.locksmith.examples.memcached;

import io.locksmith.LockStoreException;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedDeque;

/**
 * Connections to one memcached server, speaking its text protocol (the meta commands of memcached 1.6: {@code mg},
 * {@code ms}, {@code md}, {@code ma}). One request and its reply hold a connection; idle connections are kept for the
 * next request. Every connect and every read is bounded by the command time-out, so a silent server fails a request
 * instead of holding the caller; the check of the server at creation by at least 5 s. Thread-safe.
 */
final class MemcachedConnections implements AutoCloseable {

    /** A reply: its first line split at spaces, and the data block that follows a {@code VA} line, if any. */
    record Reply(List<String> words, byte[] data) {
        String status() {
            return words.get(0);
        }

        /** The value of a flag returned in the reply, e.g. {@code c} for the CAS id of {@code HD c42}. */
        long flag(char flag) {
            for (String word : words.subList(1, words.size())) {
                if (word.length() > 1 && word.charAt(0) == flag) {
                    return Long.parseLong(word.substring(1));
                }
            }
            throw new IllegalStateException("reply '" + String.join(" ", words) + "' has no flag " + flag);
        }
    }

    /**
     * The least time-out of the server check at creation ({@link #line}, {@link #lines}): it runs once, before any lock,
     * so a short command time-out (300 ms through a test proxy) must not fail a client's creation on a loaded machine.
     */
    private static final Duration PROBE_TIMEOUT = Duration.ofSeconds(5);

    private final String host;
    private final int port;
    private final Duration timeout;
    private final ConcurrentLinkedDeque<Connection> idle = new ConcurrentLinkedDeque<>();
    private volatile boolean closed;

    MemcachedConnections(String host, int port, Duration timeout) {
        this.host = host;
        this.port = port;
        this.timeout = timeout;
    }

    /**
     * Sends one command line (and {@code data}, if not null, as the data block of a {@code ms}) and reads its reply.
     * Error replies ({@code ERROR}, {@code CLIENT_ERROR}, {@code SERVER_ERROR}) are thrown.
     *
     * @throws LockStoreException if the server cannot be reached, does not answer within the time-out, or answers
     *                            with an error; the connection is then dropped, since a late reply would answer the
     *                            next request on it
     */
    Reply call(String lockName, String command, byte[] data) {
        if (closed) {
            throw new LockStoreException(lockName, "the provider's connections to memcached at " + address()
                    + " are closed", null);
        }
        Connection connection = idle.pollFirst();
        try {
            if (connection == null) {
                connection = new Connection(timeout);
            }
            Reply reply = connection.exchange(command, data);
            if (closed) {
                connection.close();
            } else {
                idle.offerFirst(connection);
            }
            connection = null; // handed back: an error reply leaves the connection in step
            if (reply.status().equals("ERROR") || reply.status().endsWith("_ERROR")) {
                throw new LockStoreException(lockName, "memcached at " + address() + " refused '" + firstWord(command)
                        + "': " + String.join(" ", reply.words()), null);
            }
            return reply;
        } catch (IOException | RuntimeException e) {
            if (connection != null) {
                connection.close();
            }
            if (e instanceof LockStoreException store) {
                throw store;
            }
            throw new LockStoreException(lockName, "memcached at " + address() + " did not answer '" + firstWord(command)
                    + "' within " + timeout.toMillis() + " ms: " + e, e);
        }
    }

    /** The lines of a multi-line reply that ends with {@code END} ({@code stats settings}), without it. */
    List<String> lines(String command) {
        Connection connection = null;
        try {
            connection = new Connection(probeTimeout());
            connection.out.write((command + "\r\n").getBytes(StandardCharsets.US_ASCII));
            connection.out.flush();
            List<String> lines = new ArrayList<>();
            for (String line = connection.readLine(); !line.equals("END"); line = connection.readLine()) {
                if (line.equals("ERROR") || line.endsWith("_ERROR") || line.startsWith("CLIENT_ERROR")
                        || line.startsWith("SERVER_ERROR")) {
                    throw new LockStoreException("memcached at " + address() + " refused '" + command + "': " + line, null);
                }
                lines.add(line);
            }
            return lines;
        } catch (IOException e) {
            throw new LockStoreException("memcached at " + address() + " did not answer '" + command + "': " + e, e);
        } finally {
            if (connection != null) {
                connection.close();
            }
        }
    }

    /** The one-line reply of a command without a data block ({@code version}). */
    String line(String command) {
        Connection connection = null;
        try {
            connection = new Connection(probeTimeout());
            connection.out.write((command + "\r\n").getBytes(StandardCharsets.US_ASCII));
            connection.out.flush();
            return connection.readLine();
        } catch (IOException e) {
            throw new LockStoreException("memcached at " + address() + " did not answer '" + command + "': " + e, e);
        } finally {
            if (connection != null) {
                connection.close();
            }
        }
    }

    String address() {
        return host + ":" + port;
    }

    private Duration probeTimeout() {
        return timeout.compareTo(PROBE_TIMEOUT) > 0 ? timeout : PROBE_TIMEOUT;
    }

    @Override
    public void close() {
        closed = true;
        for (Connection connection = idle.pollFirst(); connection != null; connection = idle.pollFirst()) {
            connection.close();
        }
    }

    private static String firstWord(String command) {
        int space = command.indexOf(' ');
        return space < 0 ? command : command.substring(0, space);
    }

    private final class Connection {
        private final Socket socket;
        private final InputStream in;
        private final OutputStream out;

        Connection(Duration bound) throws IOException {
            socket = new Socket();
            try {
                socket.setTcpNoDelay(true);
                socket.setSoTimeout((int) Math.max(1, bound.toMillis()));
                socket.connect(new InetSocketAddress(host, port), (int) Math.max(1, bound.toMillis()));
                in = new BufferedInputStream(socket.getInputStream());
                out = socket.getOutputStream();
            } catch (IOException | RuntimeException e) {
                close();
                throw e;
            }
        }

        Reply exchange(String command, byte[] data) throws IOException {
            ByteArrayOutputStream request = new ByteArrayOutputStream(command.length() + 2 + (data == null ? 0 : data.length + 2));
            request.writeBytes((command + "\r\n").getBytes(StandardCharsets.US_ASCII));
            if (data != null) {
                request.writeBytes(data);
                request.writeBytes(new byte[]{'\r', '\n'});
            }
            out.write(request.toByteArray());
            out.flush();
            List<String> words = List.of(readLine().split(" "));
            byte[] value = null;
            if (words.get(0).equals("VA")) {
                value = in.readNBytes(Integer.parseInt(words.get(1)));
                if (in.read() != '\r' || in.read() != '\n') {
                    throw new IOException("a data block of " + words.get(1) + " bytes did not end with CRLF");
                }
            }
            return new Reply(words, value);
        }

        String readLine() throws IOException {
            StringBuilder line = new StringBuilder();
            while (true) {
                int b = in.read();
                if (b < 0) {
                    throw new EOFException("the server closed the connection");
                }
                if (b == '\n' && line.length() > 0 && line.charAt(line.length() - 1) == '\r') {
                    line.setLength(line.length() - 1);
                    return line.toString();
                }
                line.append((char) b);
            }
        }

        void close() {
            try {
                socket.close();
            } catch (IOException ignored) {
                // nothing to keep: the connection is dropped either way
            }
        }
    }
}
