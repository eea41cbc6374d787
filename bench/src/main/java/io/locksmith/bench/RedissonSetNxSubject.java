package io.locksmith.bench;

import org.redisson.api.RScript;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;

import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The minimal Redis lock protocol of {@link JedisSetNxSubject} ({@code SET NX PX}, Lua compare-and-delete,
 * 20 ms retry) sent through Redisson instead of Jedis: the baseline for Locksmith over the Redisson
 * transport, so that the ratio measures Locksmith, not the difference between the two Redis clients.
 */
final class RedissonSetNxSubject implements Subject {

    private final String label;
    private final String address;
    private final Duration ttl;
    private final Duration retryInterval;

    RedissonSetNxSubject(String label, String address, Duration ttl, Duration retryInterval) {
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
        RedissonClient redisson = RedissonSubject.client(address, threads, Subjects.DEFAULT_LEASE);
        RScript script = redisson.getScript(StringCodec.INSTANCE);
        String compareAndDelete = script.scriptLoad(JedisSetNxSubject.COMPARE_AND_DELETE);
        return new Contender() {
            @Override
            public Held acquire(String name, Duration maxWait) throws InterruptedException, TimeoutException {
                String token = UUID.randomUUID().toString();
                long deadline = System.nanoTime() + maxWait.toNanos();
                while (!redisson.<String>getBucket(name, StringCodec.INSTANCE).setIfAbsent(token, ttl)) {
                    if (System.nanoTime() + retryInterval.toNanos() > deadline) {
                        throw new TimeoutException(label + " did not acquire " + name + " within " + maxWait);
                    }
                    TimeUnit.NANOSECONDS.sleep(retryInterval.toNanos());
                }
                return () -> script.evalSha(RScript.Mode.READ_WRITE, compareAndDelete, RScript.ReturnType.INTEGER,
                        List.of(name), token);
            }

            @Override
            public void close() {
                redisson.shutdown();
            }
        };
    }
}
