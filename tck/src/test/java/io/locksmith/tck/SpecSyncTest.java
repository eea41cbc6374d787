package io.locksmith.tck;

import io.locksmith.Capability;
import io.locksmith.tck.fault.FaultRule;
import io.locksmith.tck.fault.LockFaultTck;
import io.locksmith.tck.kits.AsyncKit;
import io.locksmith.tck.kits.ElectionKit;
import io.locksmith.tck.kits.ReadWriteKit;
import io.locksmith.tck.kits.SemaphoreKit;
import io.locksmith.tck.kits.ExclusionKit;
import io.locksmith.tck.kits.ExpiryKit;
import io.locksmith.tck.kits.FencingKit;
import io.locksmith.tck.kits.HistoryKit;
import io.locksmith.tck.kits.HotLockKit;
import io.locksmith.tck.kits.LifecycleKit;
import io.locksmith.tck.kits.OwnershipKit;
import io.locksmith.tck.kits.ReentryKit;
import io.locksmith.tck.kits.RenewalKit;
import io.locksmith.tck.kits.SpiFaultKit;
import io.locksmith.tck.kits.WaitingKit;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.lang.reflect.Method;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Keeps docs/SPEC.md, the rule lists ({@link TckRule}, and {@link FaultRule} for the fault rules of R9) and the
 * test methods of {@link LockTck} (its kits) and {@link LockFaultTck} in step.
 */
class SpecSyncTest {

    /** A rule of either list, with the kit class that tests it. */
    private record Rule(String id, String level, Optional<Capability> capability, String title, String anchor,
                        String methodPrefix, Class<?> kit) {
    }

    private static List<Rule> allRules() {
        List<Rule> rules = new ArrayList<>();
        for (TckRule rule : TckRule.values()) {
            rules.add(new Rule(rule.id(), rule.level().name(), rule.capability(), rule.title(), rule.anchor(),
                    rule.methodPrefix(), rule.id().matches("R1[123]\\..*") ? PrimitivesTck.class : LockTck.class));
        }
        for (FaultRule rule : FaultRule.values()) {
            rules.add(new Rule(rule.id(), rule.level().name(), rule.capability(), rule.title(), rule.anchor(),
                    rule.methodPrefix(), LockFaultTck.class));
        }
        return rules;
    }

    private static Optional<Rule> ruleOfMethod(String method) {
        return TckRule.idOfMethod(method).flatMap(id -> allRules().stream().filter(r -> r.id().equalsIgnoreCase(id)).findFirst());
    }

    private static final Pattern RULE_HEADING = Pattern.compile("^### (R\\d+\\.\\d+) (.+)$");

    /** Rule id to the text of its section (heading to the next heading). */
    private static Map<String, String> specRules() throws IOException {
        Path spec = Path.of("..", "docs", "SPEC.md");
        assertTrue(Files.isRegularFile(spec), "docs/SPEC.md not found from " + Path.of("").toAbsolutePath());
        Map<String, String> rules = new LinkedHashMap<>();
        String current = null;
        StringBuilder text = new StringBuilder();
        for (String line : Files.readAllLines(spec)) {
            Matcher heading = RULE_HEADING.matcher(line);
            if (heading.matches() || line.startsWith("## ")) {
                if (current != null) {
                    rules.put(current, text.toString());
                }
                current = heading.matches() ? heading.group(1) : null;
                text.setLength(0);
            }
            text.append(line).append('\n');
        }
        if (current != null) {
            rules.put(current, text.toString());
        }
        return rules;
    }

    /** The rule tests of {@link LockTck} (the default methods of its kits), {@link LockFaultTck} and OutageFaultTck. */
    private static List<Method> ruleTests() {
        return Stream.of(Arrays.stream(LockTck.class.getMethods()), Arrays.stream(PrimitivesTck.class.getMethods()),
                        Arrays.stream(LockFaultTck.class.getDeclaredMethods()),
                        Arrays.stream(io.locksmith.tck.fault.OutageFaultTck.class.getDeclaredMethods()))
                .flatMap(methods -> methods)
                .filter(m -> m.isAnnotationPresent(org.junit.jupiter.api.Test.class))
                .sorted(java.util.Comparator.comparing(Method::getName))
                .toList();
    }

    private static List<String> testMethods() {
        return ruleTests().stream().map(Method::getName).toList();
    }

    /** The kit of each group of rules (docs/TCK.md): the place a new rule of the group goes. */
    private static final Map<String, Class<?>> KIT_OF_GROUP = Map.ofEntries(
            Map.entry("R1", ExclusionKit.class), Map.entry("R2", OwnershipKit.class), Map.entry("R3", ExpiryKit.class),
            Map.entry("R4", ReentryKit.class), Map.entry("R5", FencingKit.class), Map.entry("R6", RenewalKit.class),
            Map.entry("R7", WaitingKit.class), Map.entry("R8", LifecycleKit.class), Map.entry("R9", SpiFaultKit.class),
            Map.entry("R10", AsyncKit.class), Map.entry("R11", SemaphoreKit.class),
            Map.entry("R12", ReadWriteKit.class), Map.entry("R13", ElectionKit.class));

    @Test
    void eachRuleIsInTheKitOfItsGroup() {
        List<String> problems = new ArrayList<>();
        for (Method test : ruleTests()) {
            if (test.getDeclaringClass() == LockFaultTck.class
                    || test.getDeclaringClass() == io.locksmith.tck.fault.OutageFaultTck.class) {
                continue;
            }
            String id = TckRule.idOfMethod(test.getName()).orElse("?");
            Class<?> expected = id.equals("R1.5") ? HistoryKit.class : id.equals("R7.11") ? HotLockKit.class
                    : KIT_OF_GROUP.get(id.substring(0, id.indexOf('.')));
            if (test.getDeclaringClass() != expected) {
                problems.add(test.getName() + " is in " + test.getDeclaringClass().getSimpleName() + ", not in "
                        + (expected == null ? "a kit of its group" : expected.getSimpleName()));
            }
        }
        assertTrue(problems.isEmpty(), String.join("\n", problems));
    }

    @Test
    void everyRuleInTheSpecIsInTheRuleListAndBack() throws IOException {
        Set<String> inSpec = new TreeSet<>(specRules().keySet());
        Set<String> inList = allRules().stream().map(Rule::id).collect(Collectors.toCollection(TreeSet::new));
        assertEquals(inSpec, inList, "docs/SPEC.md and TckRule disagree");
    }

    @Test
    void everyRuleHasExactlyOneTestNamedAfterIt() {
        List<String> methods = testMethods();
        List<String> problems = new ArrayList<>();
        for (Rule rule : allRules()) {
            List<String> tests = methods.stream().filter(m -> m.startsWith(rule.methodPrefix())).toList();
            if (tests.size() != 1) {
                problems.add(rule.id() + " has tests " + tests + " (expected one starting with " + rule.methodPrefix() + ")");
            }
        }
        assertTrue(problems.isEmpty(), String.join("\n", problems));
    }

    @Test
    void everyTestNamesARuleOfTheSpecWithTheRightPrefix() throws IOException {
        Map<String, String> spec = specRules();
        List<String> problems = new ArrayList<>();
        for (String method : testMethods()) {
            var rule = ruleOfMethod(method);
            if (rule.isEmpty()) {
                problems.add(method + " names no rule of TckRule or FaultRule");
            } else if (!method.startsWith(rule.get().methodPrefix())) {
                problems.add(method + " should start with " + rule.get().methodPrefix());
            } else if (!spec.containsKey(rule.get().id())) {
                problems.add(method + " tests " + rule.get().id() + ", which docs/SPEC.md does not have");
            }
        }
        assertTrue(problems.isEmpty(), String.join("\n", problems));
    }

    @Test
    void eachSpecRuleHasItsAnchorLevelIntentCapabilityAndTest() throws IOException {
        Map<String, String> spec = specRules();
        List<String> problems = new ArrayList<>();
        for (Rule rule : allRules()) {
            String text = spec.getOrDefault(rule.id(), "");
            if (!text.contains("<a id=\"" + rule.anchor() + "\"></a>")) {
                problems.add(rule.id() + ": no anchor " + rule.anchor());
            }
            if (!text.contains(rule.level())) {
                problems.add(rule.id() + ": the text does not use its level " + rule.level());
            }
            if (!text.contains("Intent: ")) {
                problems.add(rule.id() + ": no Intent line");
            }
            if (!text.contains("`" + rule.methodPrefix())) {
                problems.add(rule.id() + ": does not name its test " + rule.methodPrefix() + "...");
            }
            rule.capability().ifPresent(capability -> {
                if (!text.contains("`" + capability.name() + "`") && !specGroupMentions(rule, capability.name())) {
                    problems.add(rule.id() + ": does not name its capability " + capability);
                }
            });
            if (!text.startsWith("### " + rule.id() + " " + rule.title())) {
                problems.add(rule.id() + ": heading should be '" + rule.id() + " " + rule.title() + "'");
            }
        }
        assertTrue(problems.isEmpty(), String.join("\n", problems));
    }

    private static boolean specGroupMentions(Rule rule, String capability) {
        try {
            String spec = Files.readString(Path.of("..", "docs", "SPEC.md"));
            String group = "## R" + rule.id().substring(1, rule.id().indexOf('.')) + " ";
            int start = spec.indexOf(group);
            int end = spec.indexOf("\n### ", start);
            return start >= 0 && spec.substring(start, end).contains("`" + capability + "`");
        } catch (IOException e) {
            return false;
        }
    }

    /** Rules of other sections that need a store that fails, so the fault kit tests them. */
    private static final Set<String> FAULT_RULES_OUTSIDE_R9 = Set.of("R7.7", "R8.10");

    @Test
    void theFaultRulesAreTestedByTheFaultKitAndNameTheirHooks() throws IOException {
        Map<String, String> spec = specRules();
        List<String> problems = new ArrayList<>();
        for (FaultRule rule : FaultRule.values()) {
            if (!rule.id().startsWith("R9.") && !FAULT_RULES_OUTSIDE_R9.contains(rule.id())) {
                problems.add(rule.id() + " is a fault rule outside R9");
            }
            if (!spec.getOrDefault(rule.id(), "").contains("`" + rule.hook() + "`")) {
                problems.add(rule.id() + ": does not name its hook " + rule.hook());
            }
        }
        for (TckRule rule : TckRule.values()) {
            // Faults injected at the SPI need no networked store: those R9 rules run in LockTck, on every store.
            if (rule.id().startsWith("R9.") && !spec.getOrDefault(rule.id(), "").contains("`FaultInjector`")) {
                problems.add(rule.id() + " is in TckRule but is not a fault injected at the SPI (FaultInjector);"
                        + " network fault rules belong to FaultRule and LockFaultTck");
            }
        }
        assertTrue(problems.isEmpty(), String.join("\n", problems));
    }
}
