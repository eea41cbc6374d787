package io.locksmith.tck;

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
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Keeps docs/SPEC.md, {@link TckRule} and the test methods of {@link LockTck} in step. */
class SpecSyncTest {

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

    private static List<String> testMethods() {
        return Arrays.stream(LockTck.class.getDeclaredMethods())
                .filter(m -> m.isAnnotationPresent(org.junit.jupiter.api.Test.class))
                .map(Method::getName)
                .sorted()
                .toList();
    }

    @Test
    void everyRuleInTheSpecIsInTheRuleListAndBack() throws IOException {
        Set<String> inSpec = new TreeSet<>(specRules().keySet());
        Set<String> inList = Arrays.stream(TckRule.values()).map(TckRule::id).collect(Collectors.toCollection(TreeSet::new));
        assertEquals(inSpec, inList, "docs/SPEC.md and TckRule disagree");
    }

    @Test
    void everyRuleHasExactlyOneTestNamedAfterIt() {
        List<String> methods = testMethods();
        List<String> problems = new ArrayList<>();
        for (TckRule rule : TckRule.values()) {
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
            var rule = TckRule.ofMethod(method);
            if (rule.isEmpty()) {
                problems.add(method + " names no rule of TckRule");
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
        for (TckRule rule : TckRule.values()) {
            String text = spec.getOrDefault(rule.id(), "");
            if (!text.contains("<a id=\"" + rule.anchor() + "\"></a>")) {
                problems.add(rule.id() + ": no anchor " + rule.anchor());
            }
            if (!text.contains(rule.level().name())) {
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

    private static boolean specGroupMentions(TckRule rule, String capability) {
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

    @Test
    void theFaultSectionIsReserved() throws IOException {
        String spec = Files.readString(Path.of("..", "docs", "SPEC.md"));
        assertTrue(spec.contains("## R9 Faults (reserved for the fault-injection issue)"));
    }
}
