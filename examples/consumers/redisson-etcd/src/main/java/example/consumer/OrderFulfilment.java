package example.consumer;

import io.locksmith.DistributedLock;
import io.locksmith.Lease;
import io.locksmith.LockClient;

import java.time.Duration;
import java.util.Objects;
import java.util.function.LongConsumer;

/**
 * What a team's code looks like: it compiles against {@code locksmith-api} only and gets the store from a URI,
 * so the same class runs on Redis (through Redisson) and on etcd.
 */
public final class OrderFulfilment {

    private final LockClient locks;

    public OrderFulfilment(LockClient locks) {
        this.locks = Objects.requireNonNull(locks, "locks");
    }

    /**
     * Runs {@code work} while holding the lock of the order, handing it the fencing token to pass on to the
     * storage it writes.
     *
     * @return the fencing token the work ran under
     */
    public long fulfil(String orderId, Duration maxWait, LongConsumer work) {
        DistributedLock lock = locks.lock("order:" + orderId);
        try (Lease lease = lock.acquire(maxWait)) {
            work.accept(lease.fencingToken());
            lease.ensureHeld();
            return lease.fencingToken();
        }
    }
}
