package io.locksmith.redis;

import java.util.Objects;

/**
 * The Redis keys and channel of a lock name: the wire layout that every Locksmith client, Jedis or
 * Redisson, agrees on. The name sits in a {@code {...}} hash tag, so the lock and its fencing counter
 * live in one Redis Cluster slot and one script may touch both.
 *
 * <ul>
 * <li>{@code locksmith:{NAME}}: a hash with fields {@code owner}, {@code holder}, {@code token}, and the
 *     lock's TTL;</li>
 * <li>{@code locksmith:{NAME}:fence}: the fencing counter, without TTL;</li>
 * <li>{@code locksmith:{NAME}:released}: the channel a release publishes on;</li>
 * <li>{@code locksmith:{NAME}:queue}: the waiters of the name, a sorted set of owner ids scored by arrival (server
 *     time in microseconds), and {@code locksmith:{NAME}:waiting}, a hash of each waiter's entry
 *     ({@code LIVE_UNTIL_MS:TTL_MS:HOLDER}); a release hands the lock to the first live waiter. Both expire once no
 *     waiter has refreshed them for a place's lifetime;</li>
 * <li>{@code locksmith:{NAME}:abandoned:OWNER}: a short-lived marker of an acquire attempt its client gave
 *     up after a time-out, so that the attempt is refused if it still reaches the server.</li>
 * </ul>
 * Registry records ({@link io.locksmith.spi.Registry}, for the migration phase guard) live apart, in one
 * slot: {@code locksmith-registry:{registry}:KEY} and the index {@code locksmith-registry:{registry}}.
 * Tests use {@link #lockKey} to expire a lock behind its holder's back ({@code PEXPIRE key 1}).
 */
public final class RedisLockKeys {

    private static final String PREFIX = "locksmith:{";

    private RedisLockKeys() {
    }

    /** The hash that holds the lock {@code name}. */
    public static String lockKey(String name) {
        return PREFIX + Objects.requireNonNull(name, "name cannot be null") + "}";
    }

    /** The SCAN pattern of the lock hashes whose names start with {@code namePrefix}. */
    static String lockKeyPattern(String namePrefix) {
        StringBuilder pattern = new StringBuilder(PREFIX);
        for (char c : namePrefix.toCharArray()) {
            if ("*?[]\\".indexOf(c) >= 0) {
                pattern.append('\\');
            }
            pattern.append(c);
        }
        return pattern.append("*}").toString();
    }

    /** The lock name of a lock hash's key; null for a key that is not one. */
    static String nameOf(String lockKey) {
        return lockKey.startsWith(PREFIX) && lockKey.endsWith("}") && lockKey.length() > PREFIX.length()
                ? lockKey.substring(PREFIX.length(), lockKey.length() - 1) : null;
    }

    /** The fencing counter of the lock {@code name}. */
    public static String fenceKey(String name) {
        return lockKey(name) + ":fence";
    }

    /** The waiter queue of the lock {@code name}: owner ids scored by arrival. */
    static String queueKey(String name) {
        return lockKey(name) + ":queue";
    }

    /** The entries of the waiters in {@link #queueKey}: how long each stays live, its TTL and holder. */
    static String waitingKey(String name) {
        return lockKey(name) + ":waiting";
    }

    /** The Redis key of a registry record. */
    static String registryKey(String key) {
        return registryIndex() + ":" + key;
    }

    /** The sorted set indexing the registry records by expiry. */
    static String registryIndex() {
        return "locksmith-registry:{registry}";
    }

    /** The marker of an abandoned acquire attempt by {@code ownerId}. */
    static String abandonedKey(String name, String ownerId) {
        return lockKey(name) + ":abandoned:" + ownerId;
    }

    /** The channel on which releases of the lock {@code name} are published. */
    public static String releaseChannel(String name) {
        return lockKey(name) + ":released";
    }
}
