package io.locksmith.tck.kits;

import io.locksmith.Lease;
import io.locksmith.LockClient;
import io.locksmith.tck.TckRule;
import io.locksmith.tck.TckTiming;
import io.locksmith.tck.WorkloadReport;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static io.locksmith.tck.kits.KitContext.assertCompleteAndExclusive;
import static io.locksmith.tck.kits.KitContext.requireCapability;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The rules of fencing (docs/SPEC.md R5, capability {@code FENCING}): tokens strictly increase per name, across an
 * expiry too, and a fenced resource accepts no stale write under contention.
 */
public interface FencingKit extends RuleKit {

    @Test
    default void optional_r5_1_fencingTokensStrictlyIncreasePerName() {
        KitContext kit = kitContext();
        TckTiming timing = kit.timing();
        List<LockClient> holders = List.of(kit.client(), kit.client(), kit.client());
        requireCapability(holders.get(0), TckRule.R5_1);
        String name = kit.name();
        long previous = Long.MIN_VALUE;
        List<Long> tokens = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            try (Lease lease = holders.get(i % 3).lock(name, kit.longLease()).acquire(timing.slack())) {
                tokens.add(lease.fencingToken());
                assertTrue(lease.fencingToken() > previous, "holding " + (i + 1) + " of lock '" + name
                        + "' got a token not greater than the previous holder's: " + tokens);
                previous = lease.fencingToken();
            }
            // Another name's traffic must not matter.
            holders.get((i + 1) % 3).lock(name + "-other", kit.longLease()).acquire(timing.slack()).close();
        }
    }

    @Test
    default void optional_r5_2_fencingTokensIncreaseAcrossAnExpiry() {
        KitContext kit = kitContext();
        TckTiming timing = kit.timing();
        LockClient a = kit.client();
        LockClient b = kit.client();
        LockClient c = kit.client();
        requireCapability(a, TckRule.R5_2);
        String name = kit.name();
        Lease expired = a.lock(name, kit.fixedShortLease()).acquire(timing.slack());
        Lease next = b.lock(name, kit.longLease()).tryAcquire(timing.shortLease().plus(timing.slack())).orElseThrow(
                () -> new AssertionError("lock '" + name + "' did not expire (see R3.1)"));
        assertTrue(next.fencingToken() > expired.fencingToken(), "after an expiry the next holder's token "
                + next.fencingToken() + " is not greater than the expired holder's " + expired.fencingToken());
        if (kit.supportsExpiryHook()) {
            kit.expireBehindClientsBack(name);
            Lease third = c.lock(name, kit.longLease()).tryAcquire(timing.slack()).orElseThrow(
                    () -> new AssertionError("lock '" + name + "' was expired through the hook but stayed taken"));
            assertTrue(third.fencingToken() > next.fencingToken(), "after an expiry behind the holder's back the token "
                    + third.fencingToken() + " is not greater than the previous " + next.fencingToken());
            third.close();
        }
        next.close();
        expired.close();
    }

    @Test
    default void optional_r5_3_aFencedResourceAcceptsNoStaleWriteUnderContention() {
        KitContext kit = kitContext();
        requireCapability(kit.client(), TckRule.R5_3);
        WorkloadReport report = kit.runWorkload();
        assertCompleteAndExclusive(report);
        assertEquals(0, report.staleWritesAccepted(), () -> "stale writes were accepted: " + report);
        assertEquals(0, report.tokenMonotonicityViolations(), () -> "tokens went backwards: " + report);
    }
}
