package io.locksmith.tck.selftest;

import io.locksmith.Capability;
import io.locksmith.LockInfo;
import io.locksmith.LockStoreException;
import io.locksmith.spi.AcquireRequest;
import io.locksmith.spi.Grant;
import io.locksmith.spi.HolderCodec;
import io.locksmith.spi.LockProvider;
import io.locksmith.spi.LockProviderFactory;
import io.locksmith.spi.LockUri;
import io.locksmith.spi.ProviderContext;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;

/**
 * A small lock provider over a real redis-server, written the way a backend author outside the project would,
 * for the fault kit's self-tests: {@code redistoy://127.0.0.1:PORT?timeout=300ms[&flaw=...]}. Without a flaw every
 * operation is one Lua script (owner check and write in one atomic step) and tokens never fall behind the server
 * clock; each {@link Flaw} is a bug seen in real providers, a step split in two or a token that a restart resets.
 * It speaks RESP over one socket of its own (no client library), closed when a command times out, as Jedis does.
 */
final class RedisToyStore {

    /** The bugs, each switched on by {@code flaw=NAME}. */
    enum Flaw {
        /** Renewal checks the owner with HGET, then sends PEXPIRE as a second command (Redisson's RFencedLock case). */
        CHECK_THEN_SET_RENEW,
        /** Release reads the owner with HGET, then deletes with DEL (the seed's "GET, then DEL"). */
        GET_THEN_DEL_RELEASE,
        /** Acquire writes the lock without a TTL, then sets it with PEXPIRE as a second command (SETNX, then EXPIRE). */
        SET_THEN_EXPIRE_ACQUIRE,
        /** Tokens from a plain INCR counter, which starts again from nothing when a server without persistence restarts. */
        COUNTER_TOKEN
    }

    private RedisToyStore() {
    }

    /** The token: the counter, never below the server clock in microseconds (as the project's Redis scripts). */
    private static final String NEXT_TOKEN = """
            local function next_token(fence, floored)
              local token = redis.call('incr', fence)
              if floored == '1' then
                local now = redis.call('time')
                local floor = tonumber(now[1] .. string.format('%06d', tonumber(now[2])))
                if token < floor then
                  redis.call('set', fence, string.format('%d', floor))
                  token = floor
                end
              end
              return token
            end
            """;

    /** KEYS: lock, fence; ARGV: owner, holder, ttl ms, floored tokens (1/0), with TTL (1/0). Returns the token or -1. */
    private static final String ACQUIRE = NEXT_TOKEN + """
            local owner = redis.call('hget', KEYS[1], 'owner')
            if not owner then
              local token = next_token(KEYS[2], ARGV[4])
              redis.call('hset', KEYS[1], 'owner', ARGV[1], 'holder', ARGV[2], 'token', string.format('%d', token))
              if ARGV[5] == '1' then
                redis.call('pexpire', KEYS[1], ARGV[3])
              end
              return string.format('%d', token)
            end
            if owner == ARGV[1] then
              redis.call('pexpire', KEYS[1], ARGV[3])
              return redis.call('hget', KEYS[1], 'token')
            end
            return '-1'
            """;

    /** KEYS: lock; ARGV: owner, ttl ms. */
    private static final String RENEW = """
            if redis.call('hget', KEYS[1], 'owner') == ARGV[1] then
              return redis.call('pexpire', KEYS[1], ARGV[2])
            end
            return 0
            """;

    /** KEYS: lock; ARGV: owner. */
    private static final String RELEASE = """
            if redis.call('hget', KEYS[1], 'owner') == ARGV[1] then
              return redis.call('del', KEYS[1])
            end
            return 0
            """;

    /** Serves {@code redistoy://}. */
    public static final class Factory implements LockProviderFactory {
        @Override
        public Set<String> schemes() {
            return Set.of("redistoy");
        }

        @Override
        public LockProvider create(LockUri uri, ProviderContext context) {
            LockUri.HostPort host = uri.hosts(6379).get(0);
            Duration timeout = uri.duration("timeout", Duration.ofSeconds(2));
            Set<Flaw> flaws = EnumSet.noneOf(Flaw.class);
            uri.parameter("flaw").ifPresent(flaw -> flaws.add(Flaw.valueOf(flaw.toUpperCase(Locale.ROOT))));
            return new Provider(host, timeout, flaws);
        }
    }

    private static final class Provider implements LockProvider {
        private final LockUri.HostPort host;
        private final Duration timeout;
        private final Set<Flaw> flaws;
        private Socket socket;
        private InputStream in;

        Provider(LockUri.HostPort host, Duration timeout, Set<Flaw> flaws) {
            this.host = host;
            this.timeout = timeout;
            this.flaws = flaws;
        }

        private static String lockKey(String name) {
            return "toy:{" + name + "}";
        }

        private static String fenceKey(String name) {
            return "toy:{" + name + "}:fence";
        }

        @Override
        public Optional<Grant> tryAcquire(AcquireRequest request) {
            String key = lockKey(request.name());
            String ttl = Long.toString(request.ttl().toMillis());
            boolean splitTtl = flaws.contains(Flaw.SET_THEN_EXPIRE_ACQUIRE);
            Object token = call(request.name(), "EVAL", ACQUIRE, "2", key, fenceKey(request.name()),
                    request.owner().id(), HolderCodec.encode(request.owner().holder()), ttl,
                    flaws.contains(Flaw.COUNTER_TOKEN) ? "0" : "1", splitTtl ? "0" : "1");
            long value = Long.parseLong(String.valueOf(token));
            if (value < 0) {
                return Optional.empty();
            }
            if (splitTtl) {
                call(request.name(), "PEXPIRE", key, ttl);
            }
            return Optional.of(new Grant(request.name(), request.owner(), value, request.ttl()));
        }

        @Override
        public boolean renew(Grant grant, Duration ttl) {
            String key = lockKey(grant.name());
            String millis = Long.toString(ttl.toMillis());
            if (flaws.contains(Flaw.CHECK_THEN_SET_RENEW)) {
                if (!grant.owner().id().equals(call(grant.name(), "HGET", key, "owner"))) {
                    return false;
                }
                return asLong(call(grant.name(), "PEXPIRE", key, millis)) == 1;
            }
            return asLong(call(grant.name(), "EVAL", RENEW, "1", key, grant.owner().id(), millis)) == 1;
        }

        @Override
        public boolean release(Grant grant) {
            String key = lockKey(grant.name());
            if (flaws.contains(Flaw.GET_THEN_DEL_RELEASE)) {
                if (!grant.owner().id().equals(call(grant.name(), "HGET", key, "owner"))) {
                    return false;
                }
                return asLong(call(grant.name(), "DEL", key)) == 1;
            }
            return asLong(call(grant.name(), "EVAL", RELEASE, "1", key, grant.owner().id())) == 1;
        }

        @Override
        public Optional<LockInfo> inspect(String name) {
            Object fields = call(name, "HGETALL", lockKey(name));
            long pttl = asLong(call(name, "PTTL", lockKey(name)));
            List<?> list = (List<?>) fields;
            String holder = null;
            long token = -1;
            for (int i = 0; i + 1 < list.size(); i += 2) {
                if ("holder".equals(list.get(i))) {
                    holder = (String) list.get(i + 1);
                } else if ("token".equals(list.get(i))) {
                    token = Long.parseLong((String) list.get(i + 1));
                }
            }
            if (holder == null || pttl == -2) {
                return Optional.empty();
            }
            // -1: a lock without a TTL, which only a flawed acquire leaves: shown as held for as long as a long can say.
            Duration remaining = pttl < 0 ? Duration.ofMillis(Long.MAX_VALUE) : Duration.ofMillis(pttl);
            return Optional.of(new LockInfo(name, HolderCodec.decode(holder), token, remaining, List.of()));
        }

        @Override
        public Set<Capability> capabilities() {
            return EnumSet.of(Capability.FENCING);
        }

        @Override
        public Duration commandTimeout() {
            return timeout;
        }

        @Override
        public String describe() {
            return "redistoy://" + host + (flaws.isEmpty() ? "" : " " + flaws);
        }

        @Override
        public synchronized void close() {
            closeSocket();
        }

        private static long asLong(Object reply) {
            return reply instanceof Long value ? value : Long.parseLong(String.valueOf(reply));
        }

        /** One command, one reply, on the provider's connection (opened again after any failure). */
        private synchronized Object call(String name, String... words) {
            try {
                if (socket == null) {
                    Socket opened = new Socket();
                    opened.connect(new InetSocketAddress(host.host(), host.port()), (int) timeout.toMillis());
                    opened.setSoTimeout((int) timeout.toMillis());
                    opened.setTcpNoDelay(true);
                    socket = opened;
                    in = new BufferedInputStream(opened.getInputStream());
                }
                ByteArrayOutputStream request = new ByteArrayOutputStream();
                request.writeBytes(("*" + words.length + "\r\n").getBytes(StandardCharsets.UTF_8));
                for (String word : words) {
                    byte[] bytes = word.getBytes(StandardCharsets.UTF_8);
                    request.writeBytes(("$" + bytes.length + "\r\n").getBytes(StandardCharsets.UTF_8));
                    request.writeBytes(bytes);
                    request.writeBytes("\r\n".getBytes(StandardCharsets.UTF_8));
                }
                OutputStream out = socket.getOutputStream();
                out.write(request.toByteArray());
                out.flush();
                Object reply = read(in);
                if (reply instanceof RedisError error) {
                    throw new LockStoreException(name, describe() + " answered " + words[0] + " with " + error.message(), null);
                }
                return reply;
            } catch (IOException e) {
                // A connection that timed out may still deliver the late answer: never read it as the next one's.
                closeSocket();
                throw new LockStoreException(name, describe() + " did not answer " + words[0] + ": " + e, e);
            }
        }

        private void closeSocket() {
            if (socket != null) {
                try {
                    socket.close();
                } catch (IOException ignored) {
                    // closing a broken connection
                }
                socket = null;
                in = null;
            }
        }

        private record RedisError(String message) {
        }

        private static Object read(InputStream in) throws IOException {
            String line = readLine(in);
            char type = line.charAt(0);
            String rest = line.substring(1);
            switch (type) {
                case '+':
                    return rest;
                case '-':
                    return new RedisError(rest);
                case ':':
                    return Long.parseLong(rest);
                case '$': {
                    int length = Integer.parseInt(rest);
                    if (length < 0) {
                        return null;
                    }
                    byte[] body = in.readNBytes(length + 2);
                    if (body.length < length + 2) {
                        throw new IOException("connection closed");
                    }
                    return new String(body, 0, length, StandardCharsets.UTF_8);
                }
                case '*': {
                    int count = Integer.parseInt(rest);
                    List<Object> items = new ArrayList<>();
                    for (int i = 0; i < count; i++) {
                        items.add(read(in));
                    }
                    return items;
                }
                default:
                    throw new IOException("unexpected reply " + line);
            }
        }

        private static String readLine(InputStream in) throws IOException {
            StringBuilder line = new StringBuilder();
            int b;
            while ((b = in.read()) >= 0) {
                if (b == '\r') {
                    if (in.read() != '\n') {
                        throw new IOException("malformed reply");
                    }
                    return line.toString();
                }
                line.append((char) b);
            }
            throw new IOException("connection closed");
        }
    }
}
