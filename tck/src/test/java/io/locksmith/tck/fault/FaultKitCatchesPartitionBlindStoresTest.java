package io.locksmith.tck.fault;

import io.locksmith.LockClient;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.platform.launcher.Launcher;
import org.junit.platform.launcher.LauncherDiscoveryRequest;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;
import org.junit.platform.launcher.listeners.SummaryGeneratingListener;
import org.junit.platform.launcher.listeners.TestExecutionSummary;

import java.time.Duration;
import java.util.UUID;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectMethod;

/**
 * Rule R9.9 seen to fail: a replicated store whose cut-off member keeps confirming renewals from stale state
 * fails it, every run; the same store refusing them passes. Rule R9.10 likewise: a store that takes a renewal its
 * frozen member does not answer as confirmed fails it; the same store whose calls hang until the thaw passes.
 */
class FaultKitCatchesPartitionBlindStoresTest {

    private static final String RULE = "required_r9_9_aHolderOnAMinorityMemberStopsBeforeTheMajorityGrants";
    private static final String FROZEN_RULE = "required_r9_10_aHolderOnAFrozenLeaderStopsBeforeAnotherIsGranted";

    /** R9.9 over a {@link PartitionableToyStore}; a subclass says whether its cut-off member renews blindly. */
    abstract static class PartitionKit extends LockFaultTck {
        private final PartitionableToyStore store =
                PartitionableToyStore.create(UUID.randomUUID().toString().substring(0, 8), blind());

        abstract boolean blind();

        @Override
        protected DeploymentShape deploymentShape() {
            return DeploymentShape.replicated(3);
        }

        @Override
        protected LockClient newClient() {
            return LockClient.open(store.uri("majority", "lease=1s"));
        }

        @Override
        protected String minorityMemberUri() {
            closeAfterRule((AutoCloseable) store::forget);
            return store.uri("minority", "lease=1s");
        }

        @Override
        protected String majorityUri() {
            return store.uri("majority", "lease=1s");
        }

        @Override
        protected void isolateMinorityMember() {
            store.isolate();
        }

        @Override
        protected void healMinorityMember() {
            store.heal();
        }

        @Override
        protected void freezeMember() {
            store.freeze();
        }

        @Override
        protected void thawMember() {
            store.thaw();
        }

        @Override
        protected Duration minorityPartitionBound() {
            return Duration.ofSeconds(4);
        }
    }

    /** Nested and not named *Test: run only through the launcher below. */
    static class BlindMinorityKit extends PartitionKit {
        @Override
        boolean blind() {
            return true;
        }
    }

    static class QuorumMinorityKit extends PartitionKit {
        @Override
        boolean blind() {
            return false;
        }
    }

    private static TestExecutionSummary run(Class<?> kit) {
        return run(kit, RULE);
    }

    private static TestExecutionSummary run(Class<?> kit, String rule) {
        LauncherDiscoveryRequest request = LauncherDiscoveryRequestBuilder.request()
                .selectors(selectMethod(kit, rule)).build();
        Launcher launcher = LauncherFactory.create();
        SummaryGeneratingListener listener = new SummaryGeneratingListener();
        launcher.execute(request, listener);
        TestExecutionSummary summary = listener.getSummary();
        assertEquals(1, summary.getTestsStartedCount(), rule + " did not run");
        assertEquals(0, summary.getTestsAbortedCount(), rule + " was skipped");
        return summary;
    }

    @RepeatedTest(3)
    void aMemberThatRenewsFromStaleStateFailsTheRule() {
        TestExecutionSummary summary = run(BlindMinorityKit.class);
        assertEquals(1, summary.getFailures().size(), "rule R9.9 passed against a store whose cut-off member"
                + " confirms renewals from its stale state");
        String message = summary.getFailures().get(0).getException().getMessage();
        assertTrue(message.startsWith("Rule R9.9 (A holder on a minority member stops before the majority grants)"
                + " violated:"), message);
        assertTrue(message.contains("still believed it held"), message);
    }

    @RepeatedTest(3)
    void aMemberThatRefusesWithoutQuorumPassesTheRule() {
        TestExecutionSummary summary = run(QuorumMinorityKit.class);
        assertEquals(0, summary.getFailures().size(), () -> "rule R9.9 failed against a correct store: "
                + summary.getFailures().get(0).getException());
    }

    @RepeatedTest(3)
    void aStoreThatAssumesRenewalsItsFrozenLeaderDoesNotAnswerFailsR9_10() {
        TestExecutionSummary summary = run(BlindMinorityKit.class, FROZEN_RULE);
        assertEquals(1, summary.getFailures().size(), "rule R9.10 passed against a store that takes a renewal its"
                + " frozen member does not answer as confirmed");
        String message = summary.getFailures().get(0).getException().getMessage();
        assertTrue(message.startsWith("Rule R9.10 (A holder on a frozen leader or primary stops before another is"
                + " granted) violated:"), message);
        assertTrue(message.contains("still believed it held"), message);
    }

    @RepeatedTest(3)
    void aStoreWhoseCallsToTheFrozenLeaderHangPassesR9_10() {
        TestExecutionSummary summary = run(QuorumMinorityKit.class, FROZEN_RULE);
        assertEquals(0, summary.getFailures().size(), () -> "rule R9.10 failed against a correct store: "
                + summary.getFailures().get(0).getException());
    }
}
