package io.locksmith.tck.selftest;

import io.locksmith.DistributedLock;
import io.locksmith.Lease;
import io.locksmith.LeaseLostEvent;
import io.locksmith.LockClient;
import io.locksmith.LockOptions;
import io.locksmith.tck.LockShape;
import io.locksmith.tck.fault.FaultRule;
import io.locksmith.tck.fault.LockFaultTck;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.platform.engine.TestExecutionResult;

import java.io.IOException;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The fault rules run through a primitive ({@code LockFaultTck.lockShape()}) catch a primitive built wrongly over a
 * correct store: the correct semaphore, write lock and election pass R9.4 (a holder cut off from the store); a semaphore whose
 * holding does not look at its permits after the grant fails it (its holder never learns that a permit is gone), so
 * does an exclusive use that takes one permit instead of all (another client is inside beside the holder), a write lock
 * that takes a reader's share, and a leader that believes it leads until it leaves (two leaders at once).
 */
class BrokenPrimitiveFaultRulesTest {

    static ToyNetworkStore store;

    @BeforeAll
    static void startStore() {
        store = ToyNetworkStore.start();
    }

    @AfterAll
    static void stopStore() throws IOException {
        store.close();
    }

    /** The fault kit over this test's toy network store, every holding all 3 permits of a semaphore (by default). */
    abstract static class ToySemaphoreFaultTck extends BrokenFaultProvidersTest.ToyNetworkFaultTck {
        @Override
        ToyNetworkStore store() {
            return store;
        }

        @Override
        protected LockShape lockShape() {
            return LockShape.SEMAPHORE;
        }
    }

    static class CorrectSemaphoreFaultTck extends ToySemaphoreFaultTck {
    }

    /**
     * A holding that is held until closed, whatever becomes of its permits: its composition forgot to listen to them
     * once it was granted (no loss signal, {@code isHeld()} true to the end).
     */
    static class LossBlindSemaphoreFaultTck extends ToySemaphoreFaultTck {
        @Override
        protected DistributedLock lockOf(LockClient client, String name, LockOptions options) {
            return new LeaseMappingLock(super.lockOf(client, name, options), LossBlindLease::new);
        }
    }

    /** An exclusive use of a semaphore that takes one of its permits instead of all of them. */
    static class OnePermitSemaphoreFaultTck extends ToySemaphoreFaultTck {
        @Override
        protected DistributedLock lockOf(LockClient client, String name, LockOptions options) {
            return client.semaphore(name, LockShape.SEMAPHORE_PERMITS, options).asLock(1);
        }
    }

    /** Every holding a read-write lock's write lease. */
    static class CorrectWriteLockFaultTck extends ToySemaphoreFaultTck {
        @Override
        protected LockShape lockShape() {
            return LockShape.WRITE_LOCK;
        }
    }

    /** A write lock that takes a reader's share of the permits: a writer that readers and other writers get in beside. */
    static class ReaderShareWriteLockFaultTck extends CorrectWriteLockFaultTck {
        @Override
        protected DistributedLock lockOf(LockClient client, String name, LockOptions options) {
            return client.readWriteLock(name, options, LockShape.WRITE_LOCK_MAX_READERS).readLock();
        }
    }

    @Test
    void theCorrectWriteLockPassesR9_4() {
        Map<FaultRule, TestExecutionResult> results = run(CorrectWriteLockFaultTck.class);
        assertEquals(TestExecutionResult.Status.SUCCESSFUL, results.get(FaultRule.R9_4).getStatus(),
                () -> FaultRuleRuns.describe(results));
    }

    @Test
    void aWriteLockThatTakesAReadersShareFailsR9_4() {
        assertFailed(run(ReaderShareWriteLockFaultTck.class).get(FaultRule.R9_4), "another client got lock");
    }

    /** Every holding a term of an election. */
    static class CorrectElectionFaultTck extends ToySemaphoreFaultTck {
        @Override
        protected LockShape lockShape() {
            return LockShape.ELECTION_TERM;
        }
    }

    /** A leader that believes it leads until it leaves, whatever becomes of its term (no revocation on loss). */
    static class TermLossBlindElectionFaultTck extends CorrectElectionFaultTck {
        @Override
        protected DistributedLock lockOf(LockClient client, String name, LockOptions options) {
            return new LeaseMappingLock(super.lockOf(client, name, options), LossBlindLease::new);
        }
    }

    @Test
    void theCorrectElectionPassesR9_4() {
        Map<FaultRule, TestExecutionResult> results = run(CorrectElectionFaultTck.class);
        assertEquals(TestExecutionResult.Status.SUCCESSFUL, results.get(FaultRule.R9_4).getStatus(),
                () -> FaultRuleRuns.describe(results));
    }

    @Test
    void aLeaderBlindToItsTermsLossFailsR9_4() {
        assertFailed(run(TermLossBlindElectionFaultTck.class).get(FaultRule.R9_4), "still believed it held");
    }

    @Test
    void theCorrectSemaphorePassesR9_4() {
        Map<FaultRule, TestExecutionResult> results = run(CorrectSemaphoreFaultTck.class);
        assertEquals(TestExecutionResult.Status.SUCCESSFUL, results.get(FaultRule.R9_4).getStatus(),
                () -> FaultRuleRuns.describe(results));
    }

    @Test
    void aHoldingBlindToItsPermitsLossFailsR9_4() {
        assertFailed(run(LossBlindSemaphoreFaultTck.class).get(FaultRule.R9_4), "still believed it held");
    }

    @Test
    void anExclusiveUseThatTakesOnePermitFailsR9_4() {
        assertFailed(run(OnePermitSemaphoreFaultTck.class).get(FaultRule.R9_4), "another client got lock");
    }

    private static Map<FaultRule, TestExecutionResult> run(Class<? extends LockFaultTck> kit) {
        return FaultRuleRuns.run(kit, LockFaultTck.class, FaultRule.R9_4);
    }

    private static void assertFailed(TestExecutionResult result, String mentions) {
        assertEquals(TestExecutionResult.Status.FAILED, result.getStatus(), String.valueOf(result));
        String message = result.getThrowable().map(Throwable::getMessage).orElse("");
        assertTrue(message.contains(mentions), message);
    }

    /** A lock whose leases are those of {@code delegate}, changed by {@code mapping}. */
    private static final class LeaseMappingLock extends BrokenClients.ForwardingLock {
        private final java.util.function.Function<Lease, Lease> mapping;

        LeaseMappingLock(DistributedLock delegate, java.util.function.Function<Lease, Lease> mapping) {
            super(delegate);
            this.mapping = mapping;
        }

        @Override
        public Lease acquire() {
            return mapping.apply(delegate.acquire());
        }

        @Override
        public Lease acquire(Duration maxWait) {
            return mapping.apply(delegate.acquire(maxWait));
        }

        @Override
        public Optional<Lease> tryAcquire() {
            return delegate.tryAcquire().map(mapping);
        }

        @Override
        public Optional<Lease> tryAcquire(Duration maxWait) {
            return delegate.tryAcquire(maxWait).map(mapping);
        }
    }

    private static final class LossBlindLease extends BrokenClients.ForwardingLease {
        private volatile boolean closed;

        LossBlindLease(Lease delegate) {
            super(delegate);
        }

        @Override
        public boolean isHeld() {
            return !closed;
        }

        @Override
        public void ensureHeld() {
        }

        @Override
        public Lease onLost(Consumer<LeaseLostEvent> callback) {
            return this;
        }

        @Override
        public void close() {
            closed = true;
            super.close();
        }
    }
}
