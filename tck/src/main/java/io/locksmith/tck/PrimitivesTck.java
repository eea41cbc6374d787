package io.locksmith.tck;

import io.locksmith.LockClient;
import io.locksmith.tck.kits.ElectionKit;
import io.locksmith.tck.kits.ReadWriteKit;
import io.locksmith.tck.kits.SemaphoreKit;
import org.junit.jupiter.api.Timeout;

import java.util.concurrent.TimeUnit;

/**
 * The kit of the primitives beside the lock: the semaphore with leased permits ({@link SemaphoreKit}, SPEC R11),
 * the read-write lock ({@link ReadWriteKit}, R12) and leader election ({@link ElectionKit}, R13). A backend author
 * extends it as {@link LockTck}, with the same hooks:
 * <pre>{@code
 * class RedisPrimitivesTckTest extends PrimitivesTck {
 *     protected LockClient newClient() { return LockClient.open(storeUri()); }
 *     protected String storeUri() { return "redis://127.0.0.1:" + redis.port(); }
 *     protected void expireBehindClientsBack(String lockName) { jedis.pexpire(lockName, 1); }
 * }
 * }</pre>
 * The primitives are built by the shared client from the store's locks (docs/PRIMITIVES.md), so a store that passes
 * {@link LockTck} is expected to pass this kit too; it runs separately because it proves the composition on the
 * store, not the store's own rules again. R13.3 needs {@link #expireBehindClientsBack(String)}; the FENCING rules
 * (R11.6, R12.6, R13.4) run where the store declares it.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
public abstract class PrimitivesTck extends TckBase implements SemaphoreKit, ReadWriteKit, ElectionKit {

    /** A new client on {@link #storeUri()}; override to open clients another way. */
    @Override
    protected LockClient newClient() {
        return LockClient.open(storeUri());
    }
}
