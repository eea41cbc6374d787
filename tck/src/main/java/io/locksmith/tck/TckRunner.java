package io.locksmith.tck;

import org.junit.platform.engine.DiscoverySelector;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.engine.discovery.DiscoverySelectors;
import org.junit.platform.engine.support.descriptor.MethodSource;
import org.junit.platform.launcher.Launcher;
import org.junit.platform.launcher.LauncherDiscoveryRequest;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestIdentifier;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;

import java.io.PrintStream;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Runs the kit without a build tool, through the JUnit Platform Launcher: what {@code lockctl tck --uri U}
 * calls.
 * <pre>{@code
 * TckReport report = TckRunner.run("redis://127.0.0.1:6379", System.out);
 * System.exit(report.passed() ? 0 : 1);
 * }</pre>
 */
public final class TckRunner {

    private TckRunner() {
    }

    /**
     * Runs every rule against the store at {@code uri} (through {@link UriLockTck}), printing one line per
     * rule to {@code progress}.
     *
     * @throws NullPointerException if an argument is null
     */
    public static TckReport run(String uri, PrintStream progress) {
        Objects.requireNonNull(uri, "uri cannot be null");
        return run(UriLockTck.class, Map.of(UriLockTck.URI_PARAMETER, uri), progress, List.of(), uri);
    }

    /**
     * Runs a kit class (a {@link LockTck} subclass), all its rules or only the named test methods.
     *
     * @param kit            the concrete kit
     * @param configuration  JUnit configuration parameters, e.g. {@link UriLockTck#URI_PARAMETER}
     * @param progress       where to print one line per rule
     * @param methodNames    test methods to run; empty for all
     * @throws NullPointerException if an argument is null
     */
    public static TckReport run(Class<? extends TckBase> kit, Map<String, String> configuration, PrintStream progress,
                                List<String> methodNames) {
        return run(kit, configuration, progress, methodNames, kit.getName());
    }

    /**
     * The names of the test methods of {@code kit} that test {@code rules}, in the order of {@code rules}, as
     * {@link #run(Class, Map, PrintStream, List)} takes them: every rule test of the kit, wherever it is declared
     * (the rules of {@link LockTck} are the default methods of its kits in {@code io.locksmith.tck.kits}).
     *
     * @throws NullPointerException     if an argument is null
     * @throws IllegalArgumentException if the kit has no test for one of the rules
     */
    public static List<String> testMethods(Class<? extends TckBase> kit, Collection<TckRule> rules) {
        Objects.requireNonNull(kit, "kit cannot be null");
        List<String> names = new ArrayList<>();
        for (TckRule rule : Objects.requireNonNull(rules, "rules cannot be null")) {
            names.add(Arrays.stream(kit.getMethods())
                    .filter(method -> method.isAnnotationPresent(org.junit.jupiter.api.Test.class))
                    .map(Method::getName)
                    .filter(name -> name.startsWith(rule.methodPrefix()))
                    .findFirst()
                    .orElseThrow(() -> new IllegalArgumentException(kit.getName() + " has no test of rule " + rule.id())));
        }
        return names;
    }

    private static TckReport run(Class<? extends TckBase> kit, Map<String, String> configuration, PrintStream progress,
                                 List<String> methodNames, String target) {
        Objects.requireNonNull(kit, "kit cannot be null");
        Objects.requireNonNull(configuration, "configuration cannot be null");
        Objects.requireNonNull(progress, "progress cannot be null");
        List<DiscoverySelector> selectors = new ArrayList<>();
        if (methodNames.isEmpty()) {
            selectors.add(DiscoverySelectors.selectClass(kit));
        } else {
            for (String method : methodNames) {
                selectors.add(DiscoverySelectors.selectMethod(kit, method));
            }
        }
        LauncherDiscoveryRequest request = LauncherDiscoveryRequestBuilder.request()
                .selectors(selectors)
                .configurationParameters(configuration)
                .build();
        Collector collector = new Collector(progress);
        progress.println("Locksmith TCK on " + target);
        Launcher launcher = LauncherFactory.create();
        launcher.execute(request, collector);
        TckReport report = new TckReport(target, collector.results);
        progress.println(report.summary());
        return report;
    }

    /** Turns launcher events into rule results. */
    private static final class Collector implements TestExecutionListener {
        private final PrintStream progress;
        private final List<TckReport.RuleResult> results = Collections.synchronizedList(new ArrayList<>());
        private final Map<String, Long> startedAt = new ConcurrentHashMap<>();

        Collector(PrintStream progress) {
            this.progress = progress;
        }

        @Override
        public void executionStarted(TestIdentifier test) {
            startedAt.put(test.getUniqueId(), System.nanoTime());
        }

        @Override
        public void executionSkipped(TestIdentifier test, String reason) {
            if (test.isTest()) {
                add(test, TckReport.Status.SKIPPED, reason == null ? "" : reason);
            }
        }

        @Override
        public void executionFinished(TestIdentifier test, TestExecutionResult result) {
            switch (result.getStatus()) {
                case SUCCESSFUL -> {
                    if (test.isTest()) {
                        add(test, TckReport.Status.PASSED, "");
                    }
                }
                case ABORTED -> {
                    if (test.isTest()) {
                        add(test, TckReport.Status.SKIPPED, messageOf(result));
                    }
                }
                default -> add(test, TckReport.Status.FAILED, messageOf(result));
            }
        }

        private static String messageOf(TestExecutionResult result) {
            return result.getThrowable().map(t -> t.getMessage() != null ? t.getMessage() : t.toString()).orElse("");
        }

        private void add(TestIdentifier test, TckReport.Status status, String message) {
            String testName = test.getSource()
                    .filter(MethodSource.class::isInstance)
                    .map(source -> ((MethodSource) source).getMethodName())
                    .orElse(test.getDisplayName());
            String ruleId = TckRule.idOfMethod(testName).orElse("-");
            Long started = startedAt.remove(test.getUniqueId());
            Duration duration = Duration.ofNanos(started == null ? 0 : System.nanoTime() - started);
            TckReport.RuleResult result = new TckReport.RuleResult(ruleId, testName, status, message, duration);
            results.add(result);
            progress.println(result);
        }
    }
}
