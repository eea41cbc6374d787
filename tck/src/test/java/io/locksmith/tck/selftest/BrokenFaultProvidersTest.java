package io.locksmith.tck.selftest;

import io.locksmith.LockClient;
import io.locksmith.tck.fault.DeploymentShape;
import io.locksmith.tck.fault.FaultRule;
import io.locksmith.tck.fault.LockFaultTck;
import io.locksmith.tck.fault.TcpProxy;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.platform.engine.TestExecutionResult;

import java.io.IOException;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The fault kit's time-bound rules (R7.7, R8.10) against a toy store behind a socket: the correct provider passes
 * them, and each broken provider fails the rule of its defect.
 */
class BrokenFaultProvidersTest {

    static ToyNetworkStore store;

    @BeforeAll
    static void startStore() {
        store = ToyNetworkStore.start();
    }

    @AfterAll
    static void stopStore() throws IOException {
        store.close();
    }

    /** The fault kit over the toy network store, with the network flaw named by {@link #flaw()} (or none). */
    abstract static class ToyNetworkFaultTck extends LockFaultTck {
        String flaw() {
            return null;
        }

        /** The toy store of the test class that runs this kit. */
        ToyNetworkStore store() {
            return store;
        }

        private String parameters() {
            return "?timeout=300ms" + (flaw() == null ? "" : "&flaw=" + flaw());
        }

        @Override
        protected DeploymentShape deploymentShape() {
            return DeploymentShape.singleNode();
        }

        @Override
        protected LockClient newClient() {
            return LockClient.open("toynet://127.0.0.1:" + store().port() + parameters());
        }

        @Override
        protected String proxiedAddress() {
            return "127.0.0.1:" + store().port();
        }

        @Override
        protected String uriThrough(TcpProxy proxy) {
            return "toynet://127.0.0.1:" + proxy.port() + parameters() + "&store=" + store().port();
        }
    }

    static class CorrectToyNetworkFaultTck extends ToyNetworkFaultTck {
    }

    static class SwallowsStoreErrorsFaultTck extends ToyNetworkFaultTck {
        @Override
        String flaw() {
            return "swallow_errors";
        }
    }

    static class IgnoresTheTimeoutFaultTck extends ToyNetworkFaultTck {
        @Override
        String flaw() {
            return "ignore_timeout";
        }
    }

    @Test
    void theCorrectProviderPassesTheTimeBoundRules() {
        Map<FaultRule, TestExecutionResult> results = run(CorrectToyNetworkFaultTck.class, FaultRule.R7_7, FaultRule.R8_10);
        assertEquals(TestExecutionResult.Status.SUCCESSFUL, results.get(FaultRule.R7_7).getStatus(), () -> describe(results));
        assertEquals(TestExecutionResult.Status.SUCCESSFUL, results.get(FaultRule.R8_10).getStatus(), () -> describe(results));
    }

    @Test
    void aProviderThatReportsAStoreErrorAsNotAcquiredFailsR7_7() {
        Map<FaultRule, TestExecutionResult> results = run(SwallowsStoreErrorsFaultTck.class, FaultRule.R7_7);
        assertFailed(results.get(FaultRule.R7_7), "LockStoreException");
    }

    @Test
    void aProviderThatIgnoresTheCommandTimeOutFailsR8_10() {
        Map<FaultRule, TestExecutionResult> results = run(IgnoresTheTimeoutFaultTck.class, FaultRule.R8_10);
        assertFailed(results.get(FaultRule.R8_10), "tryAcquire()");
    }

    private static void assertFailed(TestExecutionResult result, String mentions) {
        assertEquals(TestExecutionResult.Status.FAILED, result.getStatus(), String.valueOf(result));
        String message = result.getThrowable().map(Throwable::getMessage).orElse("");
        assertTrue(message.contains(mentions), message);
    }

    private static String describe(Map<FaultRule, TestExecutionResult> results) {
        return FaultRuleRuns.describe(results);
    }

    private static Map<FaultRule, TestExecutionResult> run(Class<? extends LockFaultTck> kit, FaultRule... rules) {
        return FaultRuleRuns.run(kit, LockFaultTck.class, rules);
    }

}
