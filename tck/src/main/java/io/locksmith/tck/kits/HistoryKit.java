package io.locksmith.tck.kits;

import io.locksmith.Capability;
import io.locksmith.LockClient;
import io.locksmith.tck.LockHistory;
import io.locksmith.tck.TckTiming;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

import static io.locksmith.tck.kits.KitContext.SEED_PROPERTY;
import static io.locksmith.tck.kits.KitContext.hasCapability;
import static io.locksmith.tck.kits.KitContext.seed;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * The randomized history (docs/SPEC.md R1.5): a recorded multi-client workload, with faults where the kit has the
 * hook and clients that close while holding and waiting, checked as a whole against the lock model
 * ({@link LockHistory}).
 */
public interface HistoryKit extends RuleKit {

    @Test
    default void required_r1_5_aRandomizedHistorySatisfiesTheLockModel() throws Exception {
        KitContext kit = kitContext();
        TckTiming timing = kit.timing();
        List<LockClient> contenders = List.of(kit.client(), kit.client(), kit.client());
        boolean fencing = hasCapability(contenders.get(0), Capability.FENCING);
        List<String> names = List.of(kit.name(), kit.name());
        RandomizedHistory run = new RandomizedHistory(kit, names);
        LockHistory history = run.history();
        long seed = seed();
        long stopAt = System.nanoTime() + timing.historyDuration().toNanos();
        List<Future<?>> workers = new ArrayList<>();
        int threadsPerClient = 2;
        for (int c = 0; c < contenders.size(); c++) {
            for (int t = 0; t < threadsPerClient; t++) {
                LockClient client = contenders.get(c);
                SplittableRandom random = new SplittableRandom(seed * 31 + c * 7L + t);
                workers.add(kit.submit(() -> {
                    while (run.goesOn(stopAt)) {
                        run.step(client, random);
                    }
                    return null;
                }));
            }
        }
        // Clients that close while one thread holds a lock and another waits: the close must release exactly the
        // client's own holdings (a close that deletes names shows as an overlap) and leave nothing behind.
        AtomicInteger closes = new AtomicInteger();
        SplittableRandom closerRandom = new SplittableRandom(seed * 31 + 101);
        workers.add(kit.submit(() -> {
            while (run.goesOn(stopAt)) {
                run.clientClose(closerRandom);
                closes.incrementAndGet();
            }
            return null;
        }));
        Duration bound = timing.historyDuration().plus(timing.slack().multipliedBy(3));
        for (Future<?> worker : workers) {
            try {
                worker.get(bound.toMillis(), TimeUnit.MILLISECONDS);
            } catch (TimeoutException e) {
                workers.forEach(w -> w.cancel(true));
                fail("a worker of the randomized history was stuck after " + bound + " (seed " + seed + "): " + history);
            } catch (ExecutionException e) {
                throw new AssertionError("a call of the randomized history failed (seed " + seed + "): " + e.getCause()
                        + "; " + history, e.getCause());
            }
        }
        System.out.println("R1.5 history (seed " + seed + "): " + history + ", " + closes + " client closes");
        assertTrue(history.holdings() > 0, "the randomized history made no holding at all: " + history);
        Optional<String> violation = history.check(fencing);
        assertTrue(violation.isEmpty(), () -> violation.get() + " [seed " + seed + ", rerun with -D" + SEED_PROPERTY
                + "=" + seed + "; " + history + "]");
        // Every holding was released and every closed client released its own: nothing may be left behind.
        LockClient last = kit.client();
        for (String name : names) {
            last.lock(name, kit.longLease()).tryAcquire(timing.slack()).orElseThrow(() -> new AssertionError("after the"
                    + " randomized history, lock '" + name + "' stayed taken although every holding was released or its"
                    + " client closed: " + last.inspect(name) + " [seed " + seed + "; " + history + "]")).close();
        }
    }
}
