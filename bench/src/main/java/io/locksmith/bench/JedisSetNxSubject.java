package io.locksmith.bench;

import org.apache.commons.pool2.impl.GenericObjectPoolConfig;
import redis.clients.jedis.Connection;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.JedisPooled;
import redis.clients.jedis.params.SetParams;

import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The minimal Redis lock protocol a team writes by hand over Jedis: {@code SET key token NX PX ttl} to take
 * it, a Lua compare-and-delete to release it, and, when taken, a retry every {@code retryInterval}: the
 * spin-retry lock that notification must beat. No renewal, no fencing.
 */
final class JedisSetNxSubject implements Subject {

    /** Deletes the key only if it still holds our token: a plain DEL could free the next holder's lock. */
    static final String COMPARE_AND_DELETE =
            "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end";

    private final String label;
    private final HostAndPort address;
    private final Duration ttl;
    private final Duration retryInterval;

    JedisSetNxSubject(String label, HostAndPort address, Duration ttl, Duration retryInterval) {
        this.label = label;
        this.address = address;
        this.ttl = ttl;
        this.retryInterval = retryInterval;
    }

    @Override
    public String label() {
        return label;
    }

    @Override
    public java.util.Set<String> redisCommandsSent() {
        return java.util.Set.of("set");
    }

    @Override
    public Store store() {
        return Store.REDIS;
    }

    @Override
    public boolean isLocksmith() {
        return false;
    }

    @Override
    public Contender open(int threads) {
        GenericObjectPoolConfig<Connection> pool = new GenericObjectPoolConfig<>();
        pool.setMaxTotal(Math.max(8, threads));
        pool.setMaxIdle(Math.max(8, threads));
        JedisPooled jedis = new JedisPooled(address, DefaultJedisClientConfig.builder().timeoutMillis(2000).build(), pool);
        String compareAndDelete = jedis.scriptLoad(COMPARE_AND_DELETE);
        SetParams setParams = SetParams.setParams().nx().px(ttl.toMillis());
        return new Contender() {
            @Override
            public Held acquire(String name, Duration maxWait) throws InterruptedException, TimeoutException {
                String token = UUID.randomUUID().toString();
                long deadline = System.nanoTime() + maxWait.toNanos();
                while (!"OK".equals(jedis.set(name, token, setParams))) {
                    if (System.nanoTime() + retryInterval.toNanos() > deadline) {
                        throw new TimeoutException(label + " did not acquire " + name + " within " + maxWait);
                    }
                    TimeUnit.NANOSECONDS.sleep(retryInterval.toNanos()); // the spin-retry being measured
                }
                return () -> jedis.evalsha(compareAndDelete, List.of(name), List.of(token));
            }

            @Override
            public void close() {
                jedis.close();
            }
        };
    }
}
