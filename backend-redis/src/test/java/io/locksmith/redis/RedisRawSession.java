package io.locksmith.redis;

import io.locksmith.tck.RawStoreSession;
import redis.clients.jedis.Jedis;

import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

/**
 * The TCK's raw session (rule R2.6) on Redis: a plain Jedis connection as one ACL user, or without credentials, that
 * runs Redis's own commands on a lock's keys: {@code DEL} of all of them, {@code PEXPIRE}, {@code HSET} of an owner of
 * its own, {@code HMGET}. A wrong password is refused at {@code AUTH}, when the session opens.
 */
final class RedisRawSession implements RawStoreSession {

    private final Jedis jedis;

    RedisRawSession(Jedis jedis) {
        this.jedis = jedis;
    }

    @Override
    public void delete(String lockName) {
        jedis.del(RedisLockKeys.lockKey(lockName), RedisLockKeys.queueKey(lockName), RedisLockKeys.waitingKey(lockName));
    }

    @Override
    public void extend(String lockName, Duration ttl) {
        jedis.pexpire(RedisLockKeys.lockKey(lockName), ttl.toMillis());
    }

    @Override
    public void takeOver(String lockName) {
        String intruder = "intruder-" + UUID.randomUUID();
        jedis.hset(RedisLockKeys.lockKey(lockName), Map.of("owner", intruder, "holder", intruder));
    }

    @Override
    public Optional<String> read(String lockName) {
        // HMGET rather than HGETALL: the lock user's ACL (docs/REDIS.md) has the one, not the other.
        java.util.List<String> fields = jedis.hmget(RedisLockKeys.lockKey(lockName), "owner", "holder", "token");
        return fields.stream().allMatch(java.util.Objects::isNull) ? Optional.empty() : Optional.of(fields.toString());
    }

    @Override
    public void close() {
        jedis.close();
    }
}
