package io.locksmith.lockctl.demo;

import io.locksmith.Lease;
import io.locksmith.LockClient;
import io.locksmith.LockOptions;

import java.time.Duration;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * The first failure of the post-mortem, before the oversell: the lock was taken with {@code SETNX} and then given
 * a TTL with {@code EXPIRE}, and an instance crashed between the two. The key had no TTL, so nothing ever removed
 * it: every instance waited on it until someone deleted it by hand. Replayed on both sides:
 * <ul>
 * <li>naive: {@code SETNX}, crash, no {@code EXPIRE}; another instance tries for three lease times and never gets
 *     the lock, which still has no TTL (an eternal lock);</li>
 * <li>Locksmith: the acquire sets the lock, its TTL and its token in one atomic step; the holder crashes (it never
 *     releases or renews); another instance gets the lock once the lease has run out.</li>
 * </ul>
 *
 * @param naiveEternal      whether the naive lock was still held, without a TTL, after the wait
 * @param waitedMillis      how long the second naive instance tried
 * @param locksmithFreed    whether another instance got the Locksmith lock after the holder crashed
 * @param freedAfterMillis  after how long it got it
 */
public record CrashBeforeExpire(boolean naiveEternal, long waitedMillis, boolean locksmithFreed, long freedAfterMillis) {

    /**
     * Plays the scene with {@code lease} as the TTL, the Locksmith side on {@code crashed} (the instance that dies
     * holding the lock) and {@code survivor}.
     */
    public static CrashBeforeExpire play(Duration lease, LockClient crashed, LockClient survivor, Consumer<String> events) {
        Duration wait = lease.multipliedBy(3);
        NaiveLock naive = new NaiveLock(lease);
        String key = "stock:sku-42:setnx";
        naive.setNx(key, "shop-1", 1);
        events.accept("naive: shop-1 ran SETNX " + key + " and crashed before EXPIRE");
        long start = System.nanoTime();
        boolean got = false;
        while (!got && System.nanoTime() - start < wait.toNanos()) {
            got = naive.tryLock(key, "shop-2", 2);
            sleep();
        }
        long waited = millis(start);
        boolean eternal = !got && naive.hasNoTtl(key);
        events.accept("naive: shop-2 tried for " + waited + " ms: " + (eternal ? "still locked, and the key has no TTL:"
                + " an eternal lock until someone deletes it by hand" : "got it"));

        String name = "demo:crash:" + UUID.randomUUID().toString().substring(0, 8);
        LockOptions options = LockOptions.builder().leaseTime(lease).fixedLease().build();
        Lease abandoned = crashed.lock(name, options).acquire(wait);
        events.accept("Locksmith: shop-1 acquired " + name + " (lock, TTL and token in one step) and crashed");
        long crashedAt = System.nanoTime();
        Optional<Lease> next = survivor.lock(name, options).tryAcquire(wait);
        long freedAfter = millis(crashedAt);
        next.ifPresent(Lease::close);
        abandoned.close();
        events.accept("Locksmith: shop-2 " + (next.isPresent() ? "got the lock " + freedAfter + " ms after the crash,"
                + " when the lease of " + lease.toMillis() + " ms ran out" : "did not get the lock within " + wait));
        return new CrashBeforeExpire(eternal, waited, next.isPresent(), freedAfter);
    }

    private static void sleep() {
        try {
            TimeUnit.MILLISECONDS.sleep(10);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new io.locksmith.LockInterruptedException("demo", e);
        }
    }

    private static long millis(long start) {
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
    }
}
