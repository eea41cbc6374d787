package io.locksmith.tck;

import org.junit.jupiter.api.Nested;
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
     * @param methodNames    test methods to run, of the kit or of its nested kits; empty for all
     * @throws NullPointerException if an argument is null
     */
    public static TckReport run(Class<? extends LockTck> kit, Map<String, String> configuration, PrintStream progress,
                                List<String> methodNames) {
        return run(kit, configuration, progress, methodNames, kit.getName());
    }

    private static TckReport run(Class<? extends LockTck> kit, Map<String, String> configuration, PrintStream progress,
                                 List<String> methodNames, String target) {
        Objects.requireNonNull(kit, "kit cannot be null");
        Objects.requireNonNull(configuration, "configuration cannot be null");
        Objects.requireNonNull(progress, "progress cannot be null");
        List<DiscoverySelector> selectors = new ArrayList<>();
        if (methodNames.isEmpty()) {
            selectors.add(DiscoverySelectors.selectClass(kit));
        } else {
            for (String method : methodNames) {
                selectors.add(selectorOf(kit, method));
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

    /**
     * Selects test method {@code method} of {@code kit}, or of one of its nested kits ({@code LockTck}'s
     * {@code ThreadsAndAsync} and {@code HotLock}): JUnit finds a nested class's method only through a nested-method
     * selector, and a plain method selector would not run it. A name no class declares goes to a method selector, which
     * JUnit reports.
     */
    private static DiscoverySelector selectorOf(Class<?> kit, String method) {
        if (declaresTest(kit, method)) {
            return DiscoverySelectors.selectMethod(kit, method);
        }
        for (Class<?> type = kit; type != null; type = type.getSuperclass()) {
            for (Class<?> nested : type.getDeclaredClasses()) {
                if (nested.isAnnotationPresent(Nested.class) && declaresTest(nested, method)) {
                    return DiscoverySelectors.selectNestedMethod(List.of(kit), nested, method);
                }
            }
        }
        return DiscoverySelectors.selectMethod(kit, method);
    }

    private static boolean declaresTest(Class<?> type, String method) {
        for (Class<?> declaring = type; declaring != null; declaring = declaring.getSuperclass()) {
            for (Method candidate : declaring.getDeclaredMethods()) {
                if (candidate.getName().equals(method) && candidate.getParameterCount() == 0) {
                    return true;
                }
            }
        }
        return false;
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
