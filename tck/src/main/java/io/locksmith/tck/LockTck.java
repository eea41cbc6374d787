package io.locksmith.tck;

import io.locksmith.Capability;
import io.locksmith.LockClient;
import io.locksmith.spi.LockProvider;
import io.locksmith.spi.LockProviderFactory;
import io.locksmith.tck.kits.AsyncKit;
import io.locksmith.tck.kits.ExclusionKit;
import io.locksmith.tck.kits.ExpiryKit;
import io.locksmith.tck.kits.FencingKit;
import io.locksmith.tck.kits.HistoryKit;
import io.locksmith.tck.kits.HotLockKit;
import io.locksmith.tck.kits.KitContext;
import io.locksmith.tck.kits.LifecycleKit;
import io.locksmith.tck.kits.OwnershipKit;
import io.locksmith.tck.kits.ReentryKit;
import io.locksmith.tck.kits.RenewalKit;
import io.locksmith.tck.kits.SpiFaultKit;
import io.locksmith.tck.kits.StoreHooks;
import io.locksmith.tck.kits.WaitingKit;
import org.junit.jupiter.api.Timeout;

import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * The Locksmith compatibility kit: every rule of {@code docs/SPEC.md} as a JUnit 5 test. A backend author
 * extends this class once:
 * <pre>{@code
 * class RedisLockTckTest extends LockTck {
 *     static ServerProcess redis = ...;
 *
 *     protected LockClient newClient() {
 *         return LockClient.open(storeUri());
 *     }
 *
 *     protected String storeUri() {
 *         return "redis://127.0.0.1:" + redis.port();
 *     }
 *
 *     protected void expireBehindClientsBack(String lockName) {
 *         jedis.pexpire(lockName, 1);
 *     }
 *
 *     protected Set<Capability> expectedCapabilities() {
 *         return EnumSet.of(Capability.FENCING, Capability.RELEASE_NOTIFICATION);
 *     }
 * }
 * }</pre>
 *
 * <p>The rules live in one kit per group of the spec, each a JUnit test interface of {@code io.locksmith.tck.kits}
 * whose rules are its {@code default} test methods: {@link ExclusionKit} (R1.1 to R1.4), {@link HistoryKit} (R1.5),
 * {@link OwnershipKit} (R2), {@link ExpiryKit} (R3), {@link ReentryKit} (R4), {@link FencingKit} (R5),
 * {@link RenewalKit} (R6), {@link WaitingKit} (R7), {@link HotLockKit} (R7.11), {@link LifecycleKit} (R8),
 * {@link SpiFaultKit} (R9.11 to R9.13) and {@link AsyncKit} (R10). This class implements them all and hands them its hooks ({@link StoreHooks}), so the rules run as
 * methods of the author's class: Surefire counts and reports them under it, and
 * {@code -Dtest=RedisLockTckTest#required_r2_1*} selects one.
 *
 * <p>Test names carry the rule id ({@code required_r2_1_...}); {@code optional_...} rules run only for the
 * {@link Capability capabilities} the store declares and are skipped with the reason otherwise. Every
 * failure message starts with "Rule Rx.y (...) violated" and ends with where to look. Each rule uses fresh
 * lock names and closes every client it asked for. Rules that need the store to drop a lock behind its
 * holder's back are skipped, naming the hook, unless {@link #expireBehindClientsBack(String)} is overridden;
 * rules that open their own clients on the store (through the kit's {@link FaultInjector} at the SPI, or with a
 * trace id source) are skipped unless {@link #storeUri()} is (docs/TCK.md lists them).
 *
 * <p>Each rule has a time-out, so a broken store cannot hang the kit.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
public abstract class LockTck implements ExclusionKit, HistoryKit, OwnershipKit, ExpiryKit, ReentryKit, FencingKit,
        RenewalKit, WaitingKit, HotLockKit, LifecycleKit, SpiFaultKit, AsyncKit {

    /** The system property that fixes the seed of the generated names and the randomized history. */
    public static final String SEED_PROPERTY = KitContext.SEED_PROPERTY;

    private final KitContext kitContext = new KitContext(new Hooks());

    /** A NEW client on the store under test (a new client id each call). The kit closes every client it gets. */
    protected abstract LockClient newClient();

    /**
     * Makes the store drop the lock right now, as if its TTL ran out, behind its holder's back (Redis:
     * {@code PEXPIRE key 1}; mem: {@code MemStore.expire}). The default throws
     * {@link UnsupportedOperationException}, and the rules that need it are skipped with a reason naming
     * this hook.
     */
    protected void expireBehindClientsBack(String lockName) {
        throw new UnsupportedOperationException("expireBehindClientsBack(String) is not implemented by "
                + getClass().getName());
    }

    /** Timing for this store; default {@link TckTiming#defaults()}. */
    protected TckTiming timing() {
        return TckTiming.defaults();
    }

    /**
     * The URI of the store under test, for the rules that open their own clients on it: through the kit's
     * {@link FaultInjector} at the SPI, or with a trace id source (docs/TCK.md lists them). The default throws
     * {@link UnsupportedOperationException}, and those rules are skipped, naming this hook.
     */
    protected String storeUri() {
        throw new UnsupportedOperationException("storeUri() is not implemented by " + getClass().getName());
    }

    /**
     * The capabilities the store under test is expected to declare: what its documentation promises (rule R8.11).
     * A provider that silently stops declaring one would otherwise pass the kit with that capability's rules
     * skipped. The default throws {@link UnsupportedOperationException}, and R8.11 is skipped, naming this hook.
     */
    protected Set<Capability> expectedCapabilities() {
        throw new UnsupportedOperationException("expectedCapabilities() is not implemented by " + getClass().getName());
    }

    /**
     * Ends the store session of {@code storeProvider} (the store's own provider of a client the kit opened on
     * {@link #storeUri()}), as the store itself ends a session it no longer trusts: ZooKeeper expires it (close a
     * second handle opened with the same session id and password), etcd revokes the client's lease. Only for
     * stores that declare {@code SESSION_BOUND}; the default throws {@link UnsupportedOperationException}, and
     * the rules that need it are skipped, naming this hook.
     */
    protected void endStoreSession(LockProvider storeProvider) {
        throw new UnsupportedOperationException("endStoreSession(LockProvider) is not implemented by "
                + getClass().getName());
    }

    /**
     * The factory that serves {@link #storeUri()}; the default is the one {@link java.util.ServiceLoader} finds
     * for the URI's scheme. Override it for a factory that is not registered as a service.
     */
    protected LockProviderFactory storeFactory(String scheme) {
        return StoreHooks.registeredFactory(scheme);
    }

    /** The hooks above and the resources of the running rule, as the kits see them; one per test instance. */
    @Override
    public final KitContext kitContext() {
        return kitContext;
    }

    /** This kit's hooks, for the kits of {@code io.locksmith.tck.kits}. */
    private final class Hooks implements StoreHooks {
        @Override
        public String kitName() {
            return LockTck.this.getClass().getSimpleName();
        }

        @Override
        public LockClient newClient() {
            return LockTck.this.newClient();
        }

        @Override
        public String storeUri() {
            return LockTck.this.storeUri();
        }

        @Override
        public void expireBehindClientsBack(String lockName) {
            LockTck.this.expireBehindClientsBack(lockName);
        }

        @Override
        public TckTiming timing() {
            return LockTck.this.timing();
        }

        @Override
        public Set<Capability> expectedCapabilities() {
            return LockTck.this.expectedCapabilities();
        }

        @Override
        public void endStoreSession(LockProvider storeProvider) {
            LockTck.this.endStoreSession(storeProvider);
        }

        @Override
        public LockProviderFactory storeFactory(String scheme) {
            return LockTck.this.storeFactory(scheme);
        }
    }
}
