package io.locksmith.examples.memcached;

import io.locksmith.Capability;
import io.locksmith.LockConfigurationException;
import io.locksmith.LockInfo;
import io.locksmith.LockStoreException;
import io.locksmith.spi.AcquireRequest;
import io.locksmith.spi.Grant;
import io.locksmith.spi.HolderCodec;
import io.locksmith.spi.LockProvider;
import io.locksmith.spi.Owner;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.Base64;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * A lock on one memcached server (1.6 or later), over its text protocol. The worked example of docs/TCK.md, "Writing
 * a backend": everything a store must do for the Locksmith contract, and nothing the shared client already does.
 *
 * <h2>How a lock is kept</h2>
 * <ul>
 * <li><b>One item per lock</b>, under a key made of the SHA-256 of the name (memcached keys are at most 250 bytes of
 *     printable ASCII; lock names are up to 512 characters of anything). The item holds the name itself, the owner id,
 *     the fencing token and the holder identity; a read that finds another name under the key (a hash collision)
 *     fails instead of mixing two locks.</li>
 * <li><b>Acquire</b> is an {@code ms ... ME} (store only if absent, with the item's expiry, in one step), then a
 *     fencing token from the counter ({@code ma}), then an {@code ms ... C<cas>} that writes the token into the item
 *     only if the item is still the one this acquire stored. The token is taken after the lock, so tokens follow the
 *     order of the holdings; taken before, a slow acquirer could hold the lock after a faster one with a smaller
 *     token.</li>
 * <li><b>Renew and release</b> read the item with its CAS id ({@code mg ... c}), compare the owner, and write
 *     ({@code ms ... C<cas>}) or delete ({@code md ... C<cas>}) only if the item is unchanged since that read. A
 *     holder whose lease ran out and whose lock another client took meanwhile gets {@code EX} (the CAS id moved on)
 *     and learns of its loss; it never touches its successor's lock, however late its request arrives. A read
 *     followed by a plain {@code touch} or {@code delete} would be the check-then-act bug of issue 30.</li>
 * <li><b>Expiry.</b> memcached counts whole seconds, on a clock that ticks once a second: an item with an expiry of
 *     E seconds lives from E - 2 seconds (when the tick's phase wraps) to E, and up to half a second more when the
 *     server is slow to tick (2.1 to 3.5 s for E = 3 on a loaded machine). That is far coarser than a lease of 400 ms,
 *     so the provider
 *     does not ask memcached to time leases: {@link #appliesTtl()} is false, and the shared client ends every lease
 *     itself, with an owner-checked release at its TTL. The item's own expiry, the TTL rounded up to whole seconds
 *     plus {@value #EXPIRY_MARGIN_SECONDS}, only frees the lock of a holder that died: never before its TTL, at most
 *     about three and a half seconds after it.</li>
 * <li><b>Fencing tokens</b> come from one counter item for all names (a token greater than every earlier one of the
 *     server is greater than every earlier one of the name). memcached keeps nothing across a restart, so the
 *     counter starts from the clock: (milliseconds since 2020) x 2<sup>20</sup>. After a restart the first acquire
 *     starts it again from its own clock, above every token of the old counter, as long as the clocks of the
 *     clients agree more closely than the time between the first grant after one start and the first grant after
 *     the next, and no clock steps back by more than that (memcached cannot hand out 2<sup>20</sup> tokens a
 *     millisecond). Where clients' clocks are not kept in step, do not rely on the tokens across a restart.</li>
 * <li><b>No eviction.</b> A memcached that evicts items when its memory is full could drop a held lock; the factory
 *     refuses a server that was not started with {@code -M} (evictions off).</li>
 * </ul>
 *
 * <p>Capabilities: {@link Capability#FENCING} only. memcached has no notification, so waiters poll with the shared
 * client's back-off; it keeps no queue, so no fairness; it has no session, and no listing by prefix (keys are
 * hashed). Thread-safe.
 */
public final class MemcachedLockProvider implements LockProvider {

    /** Whole seconds added to a lease's TTL for the item's expiry: memcached may expire an item up to 2 s early. */
    static final int EXPIRY_MARGIN_SECONDS = 2;
    /** The key of the fencing counter. */
    static final String FENCE_KEY = "locksmith:fence";
    private static final String LOCK_KEY_PREFIX = "locksmith:lock:";
    /** 2020-01-01T00:00:00Z: the counter's start is counted from here, so 2^20 tokens a millisecond fit a long. */
    private static final long EPOCH_MILLIS = 1_577_836_800_000L;
    /** The most a relative expiry may be: memcached reads a larger number as a Unix time. */
    private static final long MAX_RELATIVE_EXPIRY_SECONDS = 60L * 60 * 24 * 30;
    /** Tokens are at least 1 (the counter starts high): a token of 0 marks an acquire still in progress. */
    private static final long PENDING = 0;
    /** How often a renew or release reads again when its compare-and-set met a change by the same owner. */
    private static final int CAS_ATTEMPTS = 10;

    private final MemcachedConnections connections;
    private final Duration commandTimeout;

    MemcachedLockProvider(MemcachedConnections connections, Duration commandTimeout) {
        this.connections = connections;
        this.commandTimeout = commandTimeout;
    }

    /**
     * Checks that the server speaks the meta protocol (1.6 or later) and never evicts items: run once by the factory,
     * so that a wrong server fails the client's creation, not a lock later.
     *
     * @throws LockConfigurationException if the server is older than 1.6 or evicts items
     * @throws LockStoreException         if the server cannot be reached
     */
    void checkServer() {
        String version = connections.line("version");
        String[] parts = version.startsWith("VERSION ") ? version.substring(8).split("\\.") : new String[0];
        if (parts.length < 2 || Integer.parseInt(parts[0]) < 1 || (Integer.parseInt(parts[0]) == 1 && Integer.parseInt(parts[1]) < 6)) {
            throw new LockConfigurationException("memcached at " + connections.address() + " answered '" + version
                    + "' to 'version': this provider needs memcached 1.6 or later (the meta commands)");
        }
        if (!connections.lines("stats settings").contains("STAT evictions off")) {
            throw new LockConfigurationException("memcached at " + connections.address() + " evicts items when its "
                    + "memory is full (evictions on), so a held lock could vanish under its holder: start it with -M");
        }
    }

    @Override
    public Optional<Grant> tryAcquire(AcquireRequest request) {
        String name = request.name();
        String key = keyOf(name);
        int expiry = expirySeconds(request.ttl());
        Record pending = new Record(name, request.owner().id(), PENDING, HolderCodec.encode(request.owner().holder()));
        MemcachedConnections.Reply added = connections.call(name, "ms " + key + " " + pending.bytes().length + " T" + expiry
                + " ME c", pending.bytes());
        if (added.status().equals("NS")) {
            return Optional.empty();
        }
        requireStatus(name, added, "HD");
        long token = nextToken(name);
        Record granted = pending.withToken(token);
        MemcachedConnections.Reply written = connections.call(name, "ms " + key + " " + granted.bytes().length + " T"
                + expiry + " C" + added.flag('c'), granted.bytes());
        if (written.status().equals("EX") || written.status().equals("NF")) {
            // The item this acquire stored is gone or replaced: only if the acquire took longer than the item lives.
            return Optional.empty();
        }
        requireStatus(name, written, "HD");
        return Optional.of(new Grant(name, request.owner(), token, request.ttl()));
    }

    @Override
    public boolean renew(Grant grant, Duration ttl) {
        String key = keyOf(grant.name());
        int expiry = expirySeconds(ttl);
        for (int attempt = 0; attempt < CAS_ATTEMPTS; attempt++) {
            Optional<Stored> stored = read(grant.name(), key);
            if (stored.isEmpty() || !stored.get().record().ownerId().equals(grant.owner().id())) {
                return false;
            }
            byte[] bytes = stored.get().record().bytes();
            MemcachedConnections.Reply reply = connections.call(grant.name(), "ms " + key + " " + bytes.length + " T"
                    + expiry + " C" + stored.get().cas(), bytes);
            if (reply.status().equals("HD")) {
                return true;
            }
            requireStatus(grant.name(), reply, "EX", "NF");
            // Changed since the read: by another owner (the next read says so) or by this owner's own acquire or release.
        }
        throw new LockStoreException(grant.name(), "the item of lock '" + grant.name() + "' kept changing during "
                + CAS_ATTEMPTS + " renewal attempts", null);
    }

    @Override
    public boolean release(Grant grant) {
        String key = keyOf(grant.name());
        for (int attempt = 0; attempt < CAS_ATTEMPTS; attempt++) {
            Optional<Stored> stored = read(grant.name(), key);
            if (stored.isEmpty() || !stored.get().record().ownerId().equals(grant.owner().id())) {
                return false;
            }
            MemcachedConnections.Reply reply = connections.call(grant.name(), "md " + key + " C" + stored.get().cas(), null);
            if (reply.status().equals("HD")) {
                return true;
            }
            requireStatus(grant.name(), reply, "EX", "NF");
        }
        throw new LockStoreException(grant.name(), "the item of lock '" + grant.name() + "' kept changing during "
                + CAS_ATTEMPTS + " release attempts", null);
    }

    @Override
    public Optional<LockInfo> inspect(String name) {
        // No time to live: the client, not memcached, times a lease (the item's own expiry is only the backstop).
        return read(name, keyOf(name)).map(stored -> new LockInfo(name, HolderCodec.decode(stored.record().holder()),
                stored.record().token(), null, List.of()));
    }

    @Override
    public Set<Capability> capabilities() {
        return EnumSet.of(Capability.FENCING);
    }

    /** False: memcached's whole-second expiry cannot time a lease, so the shared client ends leases (class comment). */
    @Override
    public boolean appliesTtl() {
        return false;
    }

    /** Three round trips (store, count, write the token) on a local network, and the client's drift allowance. */
    @Override
    public Duration minimumTtl() {
        return Duration.ofMillis(50);
    }

    @Override
    public Duration commandTimeout() {
        return commandTimeout;
    }

    @Override
    public String describe() {
        return "memcached://" + connections.address() + " (text protocol)";
    }

    @Override
    public void close() {
        connections.close();
    }

    /** The item key of a lock: memcached keys are short printable ASCII, lock names are not. */
    static String keyOf(String name) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(name.getBytes(StandardCharsets.UTF_8));
            return LOCK_KEY_PREFIX + Base64.getUrlEncoder().withoutPadding().encodeToString(digest);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java runtime has SHA-256", e);
        }
    }

    /**
     * The item's expiry for a lease of {@code ttl}: whole seconds, never shorter than the TTL although memcached's
     * once-a-second clock may expire an item up to two seconds early.
     */
    static int expirySeconds(Duration ttl) {
        long seconds = ttl.getSeconds() + (ttl.getNano() > 0 ? 1 : 0) + EXPIRY_MARGIN_SECONDS;
        if (seconds > MAX_RELATIVE_EXPIRY_SECONDS) {
            throw new IllegalArgumentException("memcached keeps an item for at most 30 days, the lease was " + ttl);
        }
        return (int) seconds;
    }

    /** The next fencing token; the counter is created at the clock's value when missing (a new or restarted server). */
    private long nextToken(String name) {
        long start = (System.currentTimeMillis() - EPOCH_MILLIS) << 20;
        MemcachedConnections.Reply reply = connections.call(name, "ma " + FENCE_KEY + " N0 J" + start + " v", null);
        requireStatus(name, reply, "VA");
        return Long.parseLong(new String(reply.data(), StandardCharsets.US_ASCII).strip());
    }

    private record Stored(Record record, long cas) {
    }

    private Optional<Stored> read(String name, String key) {
        MemcachedConnections.Reply reply = connections.call(name, "mg " + key + " v c", null);
        if (reply.status().equals("EN")) {
            return Optional.empty();
        }
        requireStatus(name, reply, "VA");
        Record record = Record.parse(name, reply.data());
        if (!record.name().equals(name)) {
            throw new LockStoreException(name, "the item of lock '" + name + "' holds the lock '" + record.name()
                    + "' (a SHA-256 collision of their keys)", null);
        }
        return Optional.of(new Stored(record, reply.flag('c')));
    }

    private void requireStatus(String name, MemcachedConnections.Reply reply, String... expected) {
        for (String status : expected) {
            if (reply.status().equals(status)) {
                return;
            }
        }
        throw new LockStoreException(name, "memcached at " + connections.address() + " answered '"
                + String.join(" ", reply.words()) + "' where " + String.join(" or ", expected) + " was expected", null);
    }

    /** What the item of a lock holds: the name, the owner id, the token (0 while the acquire runs) and the holder. */
    private record Record(String name, String ownerId, long token, String holder) {
        private static final String VERSION = "v1";

        Record withToken(long newToken) {
            return new Record(name, ownerId, newToken, holder);
        }

        /** Lines; the name and the holder in Base64, since both may contain any character. */
        byte[] bytes() {
            Base64.Encoder base64 = Base64.getEncoder();
            return String.join("\n", VERSION, base64.encodeToString(name.getBytes(StandardCharsets.UTF_8)), ownerId,
                    Long.toString(token), base64.encodeToString(holder.getBytes(StandardCharsets.UTF_8)))
                    .getBytes(StandardCharsets.UTF_8);
        }

        static Record parse(String lockName, byte[] data) {
            String[] lines = new String(data, StandardCharsets.UTF_8).split("\n", -1);
            if (lines.length != 5 || !lines[0].equals(VERSION)) {
                throw new LockStoreException(lockName, "the item of lock '" + lockName + "' is not a lock record", null);
            }
            Base64.Decoder base64 = Base64.getDecoder();
            return new Record(new String(base64.decode(lines[1]), StandardCharsets.UTF_8), lines[2],
                    Long.parseLong(lines[3]), new String(base64.decode(lines[4]), StandardCharsets.UTF_8));
        }
    }
}
