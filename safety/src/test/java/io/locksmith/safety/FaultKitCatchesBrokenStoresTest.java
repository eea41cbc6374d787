package io.locksmith.safety;

import io.locksmith.tck.fault.DeploymentShape;

import org.junit.jupiter.api.Test;
import org.junit.platform.launcher.Launcher;
import org.junit.platform.launcher.LauncherDiscoveryRequest;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;
import org.junit.platform.launcher.listeners.SummaryGeneratingListener;
import org.junit.platform.launcher.listeners.TestExecutionSummary;

import java.util.List;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectMethod;

/** A fault kit never seen to fail proves nothing: a store that renews blindly must fail rule R9.4. */
class FaultKitCatchesBrokenStoresTest {

    /** Redis, but the cut-off holder's client goes through {@link OverTrustingRedisFactory}. */
    static class OverTrustingRedisKit extends DeploymentFaultTck {
        OverTrustingRedisKit() {
            super(RedisSingleDeployment::new, DeploymentShape.singleNode(), io.locksmith.tck.TckTiming.defaults(),
                    Set.of(Fault.HOLDER_KILL, Fault.CLIENT_PARTITION));
        }

        @Override
        protected String uriThrough(io.locksmith.tck.fault.TcpProxy proxy) {
            // Store calls that fail fast, well within the lease: each failed renewal then "confirms" the lease.
            return super.uriThrough(proxy).replaceFirst("^redis", OverTrustingRedisFactory.SCHEME)
                    .replace(RedisSingleDeployment.TIMEOUT, "timeout=50ms");
        }
    }

    @Test
    void aStoreThatRenewsBlindlyFailsTheCutOffRule() {
        LauncherDiscoveryRequest request = LauncherDiscoveryRequestBuilder.request()
                .selectors(selectMethod(OverTrustingRedisKit.class,
                        "required_r9_4_aHolderCutOffFromTheStoreStopsBeforeAnyoneElseCanStart"))
                .build();
        Launcher launcher = LauncherFactory.create();
        SummaryGeneratingListener listener = new SummaryGeneratingListener();
        launcher.execute(request, listener);
        TestExecutionSummary summary = listener.getSummary();
        List<TestExecutionSummary.Failure> failures = summary.getFailures();
        assertEquals(1, summary.getTestsStartedCount(), "the rule did not run");
        assertEquals(0, summary.getTestsAbortedCount(), "rule R9.4 was skipped");
        assertEquals(1, failures.size(), "rule R9.4 passed against a store that answers 'renewed' when it could"
                + " not reach the store");
        String message = failures.get(0).getException().getMessage();
        assertTrue(message.startsWith("Rule R9.4 (A holder cut off from the store stops before anyone else can start)"
                + " violated:"), message);
    }
}
