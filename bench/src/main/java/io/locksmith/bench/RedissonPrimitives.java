package io.locksmith.bench;

import org.redisson.api.RPermitExpirableSemaphore;
import org.redisson.api.RReadWriteLock;
import org.redisson.api.RedissonClient;

import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Redisson's own semaphore and read-write lock, as a team already on Redisson uses them:
 * {@code RPermitExpirableSemaphore} (its permits expire after a lease time, as Locksmith's do; set to the same 30 s)
 * and {@code RReadWriteLock} acquired with {@code tryLock(wait)} and no lease time, so Redisson's watchdog renews it.
 * Redisson has no leader election.
 */
final class RedissonPrimitives extends PrimitiveSubject.Base {

    private final String address;
    private final Duration lease;

    RedissonPrimitives(String label, String address, Duration lease) {
        super(label, Store.REDIS);
        this.address = address;
        this.lease = lease;
    }

    @Override
    public Primitives openPrimitives() {
        RedissonClient redisson = RedissonSubject.client(address, 1, lease);
        // A permit-expirable semaphore has no permits until they are set; the first client to use a name sets them.
        Set<String> sized = ConcurrentHashMap.newKeySet();
        return new Primitives() {
            @Override
            public Held acquirePermits(String name, int size, int permits, Duration maxWait) throws Exception {
                RPermitExpirableSemaphore semaphore = redisson.getPermitExpirableSemaphore(name);
                if (sized.add(name)) {
                    semaphore.trySetPermits(size); // false, changing nothing, if another client set them first
                }
                if (permits == 1) {
                    String id = semaphore.tryAcquire(maxWait.toMillis(), lease.toMillis(), TimeUnit.MILLISECONDS);
                    if (id == null) {
                        throw timeout(name, maxWait);
                    }
                    return () -> semaphore.release(id);
                }
                java.util.List<String> ids = semaphore.tryAcquire(permits, maxWait.toMillis(), lease.toMillis(),
                        TimeUnit.MILLISECONDS);
                if (ids == null || ids.isEmpty()) {
                    throw timeout(name, maxWait);
                }
                return () -> semaphore.release(ids);
            }

            @Override
            public Held acquireRead(String name, Duration maxWait) throws Exception {
                RReadWriteLock lock = redisson.getReadWriteLock(name);
                if (!lock.readLock().tryLock(maxWait.toMillis(), TimeUnit.MILLISECONDS)) {
                    throw timeout(name, maxWait);
                }
                return lock.readLock()::unlock;
            }

            @Override
            public Held acquireWrite(String name, Duration maxWait) throws Exception {
                RReadWriteLock lock = redisson.getReadWriteLock(name);
                if (!lock.writeLock().tryLock(maxWait.toMillis(), TimeUnit.MILLISECONDS)) {
                    throw timeout(name, maxWait);
                }
                return lock.writeLock()::unlock;
            }

            @Override
            public void close() {
                redisson.shutdown();
            }
        };
    }

    private TimeoutException timeout(String name, Duration maxWait) {
        return new TimeoutException(label() + " did not acquire " + name + " within " + maxWait);
    }
}
