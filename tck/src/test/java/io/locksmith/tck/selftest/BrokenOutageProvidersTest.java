package io.locksmith.tck.selftest;

import io.locksmith.Capability;
import io.locksmith.LockClient;
import io.locksmith.LockInfo;
import io.locksmith.LockStoreException;
import io.locksmith.mem.MemLockProviderFactory;
import io.locksmith.spi.AcquireRequest;
import io.locksmith.spi.Grant;
import io.locksmith.spi.LockProvider;
import io.locksmith.spi.LockProviderFactory;
import io.locksmith.spi.LockUri;
import io.locksmith.spi.Owner;
import io.locksmith.spi.ProviderClientBuilder;
import io.locksmith.spi.ProviderContext;
import io.locksmith.tck.TckTiming;
import io.locksmith.tck.fault.FaultRule;
import io.locksmith.tck.fault.OutageFaultTck;
import org.junit.jupiter.api.Test;
import org.junit.platform.engine.TestExecutionResult;

import java.net.ConnectException;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The outage rules (R9.14, R9.15) against an in-process store that can be "killed": a correct provider reports the
 * refused connection in its error's cause chain and passes both; a provider that hides it (a store error without
 * its cause, as a client that retries connecting on its own reports a dead server) fails R9.14, whose calls then wait
 * for their bound instead of failing at once.
 */
class BrokenOutageProvidersTest {

    /** mem:// that refuses every call while killed, with the refused connection as the cause unless hidden. */
    private static final class KillableStore implements LockProviderFactory {
        final String store = "killable-" + UUID.randomUUID();
        final AtomicBoolean killed = new AtomicBoolean();
        final boolean hidesTheCause;

        KillableStore(boolean hidesTheCause) {
            this.hidesTheCause = hidesTheCause;
        }

        @Override
        public Set<String> schemes() {
            return Set.of("killable");
        }

        @Override
        public LockProvider create(LockUri uri, ProviderContext context) {
            LockProvider mem = new MemLockProviderFactory().create(LockUri.parse("mem://" + store), context);
            return new LockProvider() {
                @Override
                public Optional<Grant> tryAcquire(AcquireRequest request) {
                    refuseIfKilled(request.name());
                    return mem.tryAcquire(request);
                }

                @Override
                public boolean renew(Grant grant, Duration ttl) {
                    refuseIfKilled(grant.name());
                    return mem.renew(grant, ttl);
                }

                @Override
                public boolean release(Grant grant) {
                    refuseIfKilled(grant.name());
                    return mem.release(grant);
                }

                @Override
                public void releaseAmbiguous(String name, Owner owner) {
                    refuseIfKilled(name);
                    mem.releaseAmbiguous(name, owner);
                }

                @Override
                public void cancel(String name, Owner owner) {
                    refuseIfKilled(name);
                    mem.cancel(name, owner);
                }

                @Override
                public Optional<LockInfo> inspect(String name) {
                    refuseIfKilled(name);
                    return mem.inspect(name);
                }

                @Override
                public Set<Capability> capabilities() {
                    return Set.of();
                }

                @Override
                public String describe() {
                    return "killable://" + store;
                }

                @Override
                public void close() {
                    mem.close();
                }
            };
        }

        void refuseIfKilled(String name) {
            if (killed.get()) {
                throw new LockStoreException(name, "killable://" + store + " cannot connect",
                        hidesTheCause ? null : new ConnectException("Connection refused"));
            }
        }
    }

    abstract static class KillableOutageTck extends OutageFaultTck {
        final KillableStore store = new KillableStore(hidesTheCause());

        abstract boolean hidesTheCause();

        @Override
        protected LockClient newClient() {
            return ProviderClientBuilder.create().uri("killable://").factory(store)
                    .maxPollInterval(Duration.ofMillis(50)).build();
        }

        @Override
        protected void killStore() {
            store.killed.set(true);
        }

        @Override
        protected void restartStore() {
            store.killed.set(false);
        }

        @Override
        protected TckTiming timing() {
            return TckTiming.defaults().scaledBy(0.5);
        }
    }

    static class CorrectOutageTck extends KillableOutageTck {
        @Override
        boolean hidesTheCause() {
            return false;
        }
    }

    static class HidesTheRefusedConnectionTck extends KillableOutageTck {
        @Override
        boolean hidesTheCause() {
            return true;
        }
    }

    @Test
    void aProviderThatReportsTheRefusedConnectionPassesBothRules() {
        Map<FaultRule, TestExecutionResult> results = run(CorrectOutageTck.class, FaultRule.R9_14, FaultRule.R9_15);
        results.forEach((rule, result) -> assertEquals(TestExecutionResult.Status.SUCCESSFUL, result.getStatus(),
                rule.id() + ": " + result.getThrowable().map(Throwable::toString).orElse("")));
    }

    @Test
    void aProviderThatHidesTheRefusedConnectionFailsR9_14() {
        TestExecutionResult result = run(HidesTheRefusedConnectionTck.class, FaultRule.R9_14).get(FaultRule.R9_14);
        assertEquals(TestExecutionResult.Status.FAILED, result.getStatus(), String.valueOf(result));
        String message = result.getThrowable().map(Throwable::getMessage).orElse("");
        assertTrue(message.contains("must fail at once"), message);
    }

    private static Map<FaultRule, TestExecutionResult> run(Class<? extends OutageFaultTck> kit, FaultRule... rules) {
        return FaultRuleRuns.run(kit, OutageFaultTck.class, rules);
    }
}
