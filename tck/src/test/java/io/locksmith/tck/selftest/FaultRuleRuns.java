package io.locksmith.tck.selftest;

import io.locksmith.tck.fault.FaultRule;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.engine.discovery.DiscoverySelectors;
import org.junit.platform.engine.support.descriptor.MethodSource;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestIdentifier;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;

import java.lang.reflect.Method;
import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import static org.junit.jupiter.api.Assertions.assertTrue;

/** Runs chosen fault rules of a fault-kit class (broken or correct) through the JUnit launcher, for the kit's self-tests. */
final class FaultRuleRuns {

    private FaultRuleRuns() {
    }

    /**
     * Runs {@code rules} of {@code kit}, whose rule methods {@code kitType} declares ({@code LockFaultTck},
     * {@code OutageFaultTck}), and prints how long each took (the build's time budget).
     *
     * @return each rule's result; every rule asked for ran
     */
    static Map<FaultRule, TestExecutionResult> run(Class<?> kit, Class<?> kitType, FaultRule... rules) {
        LauncherDiscoveryRequestBuilder request = LauncherDiscoveryRequestBuilder.request();
        for (FaultRule rule : rules) {
            String method = Arrays.stream(kitType.getDeclaredMethods()).map(Method::getName)
                    .filter(name -> name.startsWith(rule.methodPrefix())).findFirst().orElseThrow();
            request.selectors(DiscoverySelectors.selectMethod(kit, method));
        }
        Map<FaultRule, TestExecutionResult> results = new ConcurrentHashMap<>();
        Map<String, Long> startedAt = new ConcurrentHashMap<>();
        LauncherFactory.create().execute(request.build(), new TestExecutionListener() {
            @Override
            public void executionStarted(TestIdentifier test) {
                startedAt.put(test.getUniqueId(), System.nanoTime());
            }

            @Override
            public void executionFinished(TestIdentifier test, TestExecutionResult result) {
                test.getSource().filter(MethodSource.class::isInstance).map(MethodSource.class::cast)
                        .flatMap(source -> FaultRule.ofMethod(source.getMethodName()))
                        .ifPresent(rule -> {
                            results.put(rule, result);
                            System.out.printf("%s on %s: %s in %d ms%s%n", rule.id(), kit.getSimpleName(),
                                    result.getStatus(), (System.nanoTime() - startedAt.get(test.getUniqueId())) / 1_000_000,
                                    result.getThrowable().map(t -> ": " + t.getMessage()).orElse(""));
                        });
            }
        });
        for (FaultRule rule : rules) {
            assertTrue(results.containsKey(rule), rule.id() + " did not run on " + kit.getSimpleName());
        }
        return results;
    }

    /** The results, one line per rule, for a failure message. */
    static String describe(Map<FaultRule, TestExecutionResult> results) {
        StringBuilder text = new StringBuilder();
        results.forEach((rule, result) -> text.append(rule.id()).append(": ").append(result.getStatus()).append(' ')
                .append(result.getThrowable().map(Throwable::toString).orElse("")).append('\n'));
        return text.toString();
    }
}
