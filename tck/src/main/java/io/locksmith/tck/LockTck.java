package io.locksmith.tck;

import io.locksmith.Capability;
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
public abstract class LockTck extends TckBase implements ExclusionKit, HistoryKit, OwnershipKit, ExpiryKit, ReentryKit, FencingKit,
        RenewalKit, WaitingKit, HotLockKit, LifecycleKit, SpiFaultKit, AsyncKit {

    /** The system property that fixes the seed of the generated names and the randomized history. */
    public static final String SEED_PROPERTY = KitContext.SEED_PROPERTY;
}
