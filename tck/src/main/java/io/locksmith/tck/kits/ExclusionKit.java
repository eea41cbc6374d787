package io.locksmith.tck.kits;

import io.locksmith.DistributedLock;
import io.locksmith.Lease;
import io.locksmith.LockClient;
import io.locksmith.tck.TckTiming;
import io.locksmith.tck.WorkloadReport;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static io.locksmith.tck.kits.KitContext.assertCompleteAndExclusive;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The rules of exclusion (docs/SPEC.md R1.1 to R1.4): one holder per name at a time, names independent, an
 * atomic acquire under a race, and a contention workload without overlap. The randomized history of R1.5 is
 * {@link HistoryKit}.
 */
public interface ExclusionKit extends RuleKit {

    @Test
    default void required_r1_1_onlyOneHolderAtATime() {
        KitContext kit = kitContext();
        TckTiming timing = kit.timing();
        String name = kit.name();
        LockClient a = kit.client();
        LockClient b = kit.client();
        try (Lease held = a.lock(name, kit.longLease()).acquire(timing.slack())) {
            assertTrue(b.lock(name, kit.longLease()).tryAcquire().isEmpty(),
                    "a second client got lock '" + name + "' while the first held it (token " + held.fencingToken() + ")");
            assertTrue(b.lock(name, kit.longLease()).tryAcquire(timing.shortWait()).isEmpty(),
                    "a second client got lock '" + name + "' after a bounded wait while the first still held it");
            assertTrue(held.isHeld(), "the first holder lost the lock while another client tried to take it");
        }
        try (Lease next = b.lock(name, kit.longLease()).tryAcquire().orElseThrow(
                () -> new AssertionError("lock '" + name + "' was released but another client could not take it"))) {
            assertTrue(next.isHeld());
        }
    }

    @Test
    default void required_r1_2_namesAreIndependent() {
        KitContext kit = kitContext();
        TckTiming timing = kit.timing();
        String name = kit.name();
        LockClient a = kit.client();
        LockClient b = kit.client();
        try (Lease held = a.lock(name, kit.longLease()).acquire(timing.slack());
             Lease other = b.lock(name + "-other", kit.longLease()).tryAcquire().orElseThrow(
                     () -> new AssertionError("holding '" + name + "' blocked the different name '" + name + "-other'"));
             Lease prefix = b.lock(name.substring(0, name.length() - 1), kit.longLease()).tryAcquire().orElseThrow(
                     () -> new AssertionError("holding '" + name + "' blocked its prefix"));
             Lease second = a.lock(name + ":2", kit.longLease()).tryAcquire().orElseThrow(
                     () -> new AssertionError("a client holding '" + name + "' could not take a second name"))) {
            assertEquals(2, a.heldCount(), "client A should hold two store locks");
            assertTrue(held.isHeld() && other.isHeld() && prefix.isHeld() && second.isHeld());
        }
    }

    @Test
    default void required_r1_3_acquireIsAtomicUnderARace() throws Exception {
        KitContext kit = kitContext();
        TckTiming timing = kit.timing();
        int racers = 4;
        List<LockClient> racing = new ArrayList<>();
        for (int i = 0; i < racers; i++) {
            racing.add(kit.client());
        }
        for (int round = 1; round <= 10; round++) {
            String name = kit.name();
            CyclicBarrier start = new CyclicBarrier(racers);
            List<Future<Optional<Lease>>> attempts = new ArrayList<>();
            for (LockClient racer : racing) {
                DistributedLock lock = racer.lock(name, kit.longLease());
                attempts.add(kit.submit(() -> {
                    start.await(timing.slack().toMillis(), TimeUnit.MILLISECONDS);
                    return lock.tryAcquire();
                }));
            }
            List<Lease> winners = new ArrayList<>();
            for (Future<Optional<Lease>> attempt : attempts) {
                attempt.get(timing.slack().multipliedBy(2).toMillis(), TimeUnit.MILLISECONDS).ifPresent(winners::add);
            }
            winners.forEach(Lease::close);
            assertEquals(1, winners.size(), "round " + round + ": " + racers + " clients raced for the free lock '"
                    + name + "' and " + winners.size() + " of them got it (tokens "
                    + winners.stream().map(Lease::fencingToken).toList() + ")");
        }
    }

    @Test
    default void required_r1_4_contentionWorkloadShowsNoOverlap() {
        KitContext kit = kitContext();
        WorkloadReport report = kit.runWorkload();
        assertCompleteAndExclusive(report);
    }
}
