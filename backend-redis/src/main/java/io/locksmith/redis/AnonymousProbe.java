package io.locksmith.redis;

import io.locksmith.spi.LockUri;

import javax.net.ssl.SSLSocket;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/**
 * Whether a Redis node keeps a client without credentials away from the lock keys: the half of capability
 * {@code ACCESS_CONTROL} (SPEC R2.6) that the client can see. The client's own user cannot ask the server about
 * another user ({@code ACL DRYRUN} needs {@code +acl}, which a lock user must not have), so one connection without
 * {@code AUTH} asks {@code EXISTS} on a lock key, as Redis's {@code default} user: answered, the default user is left
 * open on the lock keys ({@code nopass}, Redis's default) and anyone who reaches the port can free any lock;
 * refused ({@code NOAUTH}, {@code NOPERM}), it is kept out. Any other answer, or none, promises nothing.
 */
final class AnonymousProbe {

    private AnonymousProbe() {
    }

    /** Whether {@code host} refuses a client without credentials on a lock key; false when it cannot tell. */
    static boolean keepsOut(RedisSettings settings, LockUri.HostPort host, Duration timeout) {
        int millis = (int) Math.min(Integer.MAX_VALUE, Math.max(1, timeout.toMillis()));
        try (Socket socket = connect(settings, host, millis)) {
            String key = RedisLockKeys.lockKey("locksmith-access-probe");
            byte[] keyBytes = key.getBytes(StandardCharsets.UTF_8);
            OutputStream out = socket.getOutputStream();
            out.write(("*2\r\n$6\r\nEXISTS\r\n$" + keyBytes.length + "\r\n").getBytes(StandardCharsets.US_ASCII));
            out.write(keyBytes);
            out.write("\r\n".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = socket.getInputStream();
            int type = in.read();
            if (type != '-') {
                return false;
            }
            StringBuilder error = new StringBuilder();
            for (int c = in.read(); c >= 0 && c != '\r' && error.length() < 64; c = in.read()) {
                error.append((char) c);
            }
            return error.toString().startsWith("NOAUTH") || error.toString().startsWith("NOPERM");
        } catch (IOException | RuntimeException e) {
            return false;
        }
    }

    private static Socket connect(RedisSettings settings, LockUri.HostPort host, int millis) throws IOException {
        Socket plain = new Socket();
        try {
            plain.connect(new InetSocketAddress(host.host(), host.port()), millis);
            plain.setSoTimeout(millis);
            if (!settings.ssl()) {
                return plain;
            }
            SSLSocket tls = (SSLSocket) settings.tls().socketFactory().createSocket(plain, host.host(), host.port(),
                    true);
            tls.setSSLParameters(RedisTls.verifyingHostNames());
            tls.startHandshake();
            return tls;
        } catch (IOException | RuntimeException e) {
            plain.close();
            throw e;
        }
    }
}
