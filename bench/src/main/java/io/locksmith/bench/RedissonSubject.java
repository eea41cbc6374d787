package io.locksmith.bench;

import org.redisson.Redisson;
import org.redisson.api.RFencedLock;
import org.redisson.api.RLock;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Redisson's own locks, as a team already on Redisson uses them: {@code RLock} or {@code RFencedLock},
 * acquired with {@code tryLock(wait)} and no lease time, so Redisson's watchdog renews them (every
 * {@code lockWatchdogTimeout / 3}, per lock).
 */
final class RedissonSubject implements Subject {

    enum Kind { LOCK, FENCED_LOCK }

    private final String label;
    private final String address;
    private final Kind kind;
    private final Duration watchdogTimeout;

    RedissonSubject(String label, String address, Kind kind, Duration watchdogTimeout) {
        this.label = label;
        this.address = address;
        this.kind = kind;
        this.watchdogTimeout = watchdogTimeout;
    }

    @Override
    public String label() {
        return label;
    }

    @Override
    public Store store() {
        return Store.REDIS;
    }

    @Override
    public boolean isLocksmith() {
        return false;
    }

    /** A Redisson client sized for {@code threads} threads, as the Locksmith-over-Redisson transport is. */
    static RedissonClient client(String address, int threads, Duration watchdogTimeout) {
        Config config = new Config();
        config.setLockWatchdogTimeout(watchdogTimeout.toMillis());
        config.setNettyThreads(Math.max(2, Math.min(threads, 8)));
        config.useSingleServer()
                .setAddress(address)
                .setConnectionMinimumIdleSize(1)
                .setConnectionPoolSize(Math.max(8, threads))
                .setSubscriptionConnectionMinimumIdleSize(1)
                .setSubscriptionConnectionPoolSize(Math.max(8, threads));
        return Redisson.create(config);
    }

    @Override
    public Contender open(int threads) {
        RedissonClient redisson = client(address, threads, watchdogTimeout);
        return new Contender() {
            @Override
            public Held acquire(String name, Duration maxWait) throws InterruptedException, TimeoutException {
                RLock lock = kind == Kind.LOCK ? redisson.getLock(name) : redisson.getFencedLock(name);
                boolean acquired;
                if (lock instanceof RFencedLock fenced) {
                    acquired = fenced.tryLockAndGetToken(maxWait.toMillis(), TimeUnit.MILLISECONDS) != null;
                } else {
                    acquired = lock.tryLock(maxWait.toMillis(), TimeUnit.MILLISECONDS);
                }
                if (!acquired) {
                    throw new TimeoutException(label + " did not acquire " + name + " within " + maxWait);
                }
                return lock::unlock;
            }

            @Override
            public void close() {
                redisson.shutdown();
            }
        };
    }
}
