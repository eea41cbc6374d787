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

import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The fault kit's interleaving and restart rules (R9.16 to R9.19) against {@link RedisToyStore}, a provider over a
 * real redis-server behind the kit's {@link TcpProxy}: written correctly (one script per operation, tokens floored by
 * the server clock) it passes them; each of its flaws, a bug of real providers, fails the rule written for it, in
 * every run. {@code -Dlocksmith.selftest.repeat=10} runs each broken provider ten times.
 */
class BrokenRedisProvidersTest {

    private static final int REPEAT = Integer.getInteger("locksmith.selftest.repeat", 1);

    static RedisServerForSelfTests redis;

    @BeforeAll
    static void startRedis() {
        redis = RedisServerForSelfTests.start();
    }

    @AfterAll
    static void stopRedis() {
        redis.close();
    }

    /** The fault kit over {@code redistoy://}, with the flaw named by {@link #flaw()} (or none). */
    abstract static class RedisToyFaultTck extends LockFaultTck {
        String flaw() {
            return null;
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
            return LockClient.open("redistoy://127.0.0.1:" + redis.port() + parameters());
        }

        @Override
        protected String proxiedAddress() {
            return "127.0.0.1:" + redis.port();
        }

        @Override
        protected String uriThrough(TcpProxy proxy) {
            return "redistoy://127.0.0.1:" + proxy.port() + parameters();
        }

        @Override
        protected void restartStore() {
            redis.restart();
        }
    }

    static class CorrectKit extends RedisToyFaultTck {
    }

    static class CheckThenSetRenewKit extends RedisToyFaultTck {
        @Override
        String flaw() {
            return "check_then_set_renew";
        }
    }

    static class GetThenDelReleaseKit extends RedisToyFaultTck {
        @Override
        String flaw() {
            return "get_then_del_release";
        }
    }

    static class SetThenExpireAcquireKit extends RedisToyFaultTck {
        @Override
        String flaw() {
            return "set_then_expire_acquire";
        }
    }

    static class CounterTokenKit extends RedisToyFaultTck {
        @Override
        String flaw() {
            return "counter_token";
        }
    }

    /** A single-node kit class without {@code restartStore()}: R9.19 must fail, saying how to give it. */
    static class NoRestartHookKit extends RedisToyFaultTck {
        @Override
        protected void restartStore() {
            throw new UnsupportedOperationException("restartStore()");
        }
    }

    /** A replicated kit class with none of the member hooks: R9.6, R9.9 and R9.10 must fail, saying how to give them. */
    static class ReplicatedWithoutMemberHooksKit extends RedisToyFaultTck {
        @Override
        protected DeploymentShape deploymentShape() {
            return DeploymentShape.replicated(3);
        }
    }

    /** A kit class whose "proxied" client goes straight to the store, as one that follows a member list would. */
    static class BypassingKit extends RedisToyFaultTck {
        @Override
        protected String uriThrough(TcpProxy proxy) {
            return "redistoy://127.0.0.1:" + redis.port() + "?timeout=300ms";
        }
    }

    @Test
    void aClientThatGoesAroundTheProxiesFailsTheProxyRulesSayingSo() {
        Map<FaultRule, TestExecutionResult> results = run(BypassingKit.class, FaultRule.R9_4, FaultRule.R9_16);
        for (FaultRule rule : results.keySet()) {
            String message = results.get(rule).getThrowable().map(Throwable::getMessage).orElse("");
            assertEquals(TestExecutionResult.Status.FAILED, results.get(rule).getStatus(), rule.id() + ": " + message);
            assertTrue(message.contains("reaches the store around them") && message.contains("TcpProxies.addressMap()"),
                    message);
        }
    }

    @Test
    void theCorrectProviderPassesTheInterleavingAndRestartRules() {
        for (int run = 1; run <= REPEAT; run++) {
            Map<FaultRule, TestExecutionResult> results = run(CorrectKit.class, FaultRule.R9_16, FaultRule.R9_17,
                    FaultRule.R9_18, FaultRule.R9_19);
            for (FaultRule rule : results.keySet()) {
                assertEquals(TestExecutionResult.Status.SUCCESSFUL, results.get(rule).getStatus(),
                        "run " + run + ": " + describe(results));
            }
        }
    }

    @Test
    void aCheckThenSetRenewalFailsR9_16() {
        assertCaught(CheckThenSetRenewKit.class, FaultRule.R9_16, "stale renewal");
    }

    @Test
    void aGetThenDelReleaseFailsR9_17() {
        assertCaught(GetThenDelReleaseKit.class, FaultRule.R9_17, "stale release (its second step) removed it");
    }

    @Test
    void anAcquireThatSetsItsTtlInASecondStepFailsR9_18() {
        assertCaught(SetThenExpireAcquireKit.class, FaultRule.R9_18, "outlives the TTL");
    }

    @Test
    void aCounterTokenThatARestartResetsFailsR9_19() {
        assertCaught(CounterTokenKit.class, FaultRule.R9_19, "granted before the restart");
    }

    @Test
    void aSingleNodeKitWithoutTheRestartHookFailsR9_19WithHowToGiveIt() {
        TestExecutionResult result = run(NoRestartHookKit.class, FaultRule.R9_19).get(FaultRule.R9_19);
        assertEquals(TestExecutionResult.Status.FAILED, result.getStatus(), String.valueOf(result));
        String message = result.getThrowable().map(Throwable::getMessage).orElse("");
        assertTrue(message.startsWith("Rule R9.19 (A restarted store's holders are told, and its tokens keep"
                + " increasing) NOT RUN, and it is required on a deployment of this shape (single node)"), message);
        assertTrue(message.contains("restartStore()") && message.contains("ServerProcess.restart()"), message);
    }

    @Test
    void aReplicatedKitWithoutMemberHooksFailsTheirRulesWithHowToGiveThem() {
        Map<FaultRule, TestExecutionResult> results = run(ReplicatedWithoutMemberHooksKit.class, FaultRule.R9_6,
                FaultRule.R9_9, FaultRule.R9_10, FaultRule.R9_19);
        for (FaultRule rule : new FaultRule[] {FaultRule.R9_6, FaultRule.R9_9, FaultRule.R9_10}) {
            TestExecutionResult result = results.get(rule);
            assertEquals(TestExecutionResult.Status.FAILED, result.getStatus(), rule.id() + ": " + result);
            String message = result.getThrowable().map(Throwable::getMessage).orElse("");
            assertTrue(message.contains("required on a deployment of this shape (replicated, 3 members)")
                    && message.contains(rule.hook()) && message.contains("rulesNotRunHere()"), message);
        }
        assertEquals(TestExecutionResult.Status.ABORTED, results.get(FaultRule.R9_19).getStatus(),
                "R9.19 is for a single node: a replicated kit class skips it");
    }

    private static void assertCaught(Class<? extends LockFaultTck> kit, FaultRule rule, String mentions) {
        int caught = 0;
        StringBuilder misses = new StringBuilder();
        for (int run = 1; run <= REPEAT; run++) {
            TestExecutionResult result = run(kit, rule).get(rule);
            String message = result.getThrowable().map(Throwable::getMessage).orElse("");
            if (result.getStatus() == TestExecutionResult.Status.FAILED
                    && message.startsWith("Rule " + rule.id() + " (" + rule.title() + ") violated:")
                    && message.contains(mentions)) {
                caught++;
            } else {
                misses.append("\n  run ").append(run).append(": ").append(result.getStatus()).append(' ').append(message);
            }
        }
        System.out.printf("%s caught by %s in %d of %d runs%n", kit.getSimpleName(), rule.id(), caught, REPEAT);
        assertEquals(REPEAT, caught, kit.getSimpleName() + " was not caught by " + rule.id() + " (expected a failure"
                + " mentioning '" + mentions + "') in every run:" + misses);
    }

    private static String describe(Map<FaultRule, TestExecutionResult> results) {
        return FaultRuleRuns.describe(results);
    }

    private static Map<FaultRule, TestExecutionResult> run(Class<? extends LockFaultTck> kit, FaultRule... rules) {
        return FaultRuleRuns.run(kit, LockFaultTck.class, rules);
    }
}
