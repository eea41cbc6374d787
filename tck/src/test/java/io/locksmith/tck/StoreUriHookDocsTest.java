package io.locksmith.tck;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The rules that are skipped without {@link LockTck#storeUri()} are listed once for authors, in docs/TCK.md ("What the
 * kit needs from you"); the kit's Javadoc points there and docs/SPEC.md notes "needs {@code storeUri()}" beside each of
 * those rules. This keeps the list, the notes and the kit's code in step: a rule needs the hook where it opens a client
 * of its own ({@code spiClient(TckRule.Rx_y, ...)}), unless it only does so when the hook is there.
 */
class StoreUriHookDocsTest {

    private static final Pattern SPI_CLIENT = Pattern.compile("spiClient\\(TckRule\\.(R\\d+)_(\\d+)");
    private static final Pattern OPTIONAL_SPI_CLIENT = Pattern.compile("supportsStoreUri\\(\\)\\s*\\?\\s*spiClient\\(TckRule\\.(R\\d+)_(\\d+)");
    private static final Pattern RULE_ID = Pattern.compile("R\\d+\\.\\d+");
    private static final String TCK_MD_MARKER = "**Skipped, naming the hook:**";

    /** Rule ids whose test opens a client through the kit's FaultInjector whether or not the hook is there. */
    private static Set<String> fromTheKitsCode() throws IOException {
        Set<String> needed = new TreeSet<>();
        Set<String> optional = new TreeSet<>();
        try (Stream<Path> sources = Files.walk(Path.of("src", "main", "java", "io", "locksmith", "tck"))) {
            for (Path source : sources.filter(p -> p.toString().endsWith(".java")).toList()) {
                String code = Files.readString(source);
                Matcher uses = SPI_CLIENT.matcher(code);
                while (uses.find()) {
                    needed.add(uses.group(1) + "." + uses.group(2));
                }
                Matcher optionalUses = OPTIONAL_SPI_CLIENT.matcher(code);
                while (optionalUses.find()) {
                    optional.add(optionalUses.group(1) + "." + optionalUses.group(2));
                }
            }
        }
        assertFalse(needed.isEmpty(), "no rule of the kit calls spiClient(TckRule.Rx_y, ...) any more: update this test"
                + " to find the rules that open their own clients on storeUri()");
        needed.removeAll(optional);
        return needed;
    }

    private static Set<String> fromTckMd() throws IOException {
        String tck = Files.readString(Path.of("..", "docs", "TCK.md"));
        String row = tck.lines().filter(line -> line.startsWith("| `storeUri()` |")).findFirst()
                .orElseThrow(() -> new AssertionError("docs/TCK.md has no row for storeUri() in its table of hooks"));
        int start = row.indexOf(TCK_MD_MARKER);
        assertTrue(start >= 0, "the storeUri() row of docs/TCK.md does not list its rules after " + TCK_MD_MARKER);
        String list = row.substring(start + TCK_MD_MARKER.length(), row.indexOf(". ", start));
        Set<String> ids = new TreeSet<>();
        RULE_ID.matcher(list).results().forEach(match -> ids.add(match.group()));
        return ids;
    }

    private static Set<String> fromSpecMd() throws IOException {
        Map<String, StringBuilder> sections = new LinkedHashMap<>();
        StringBuilder current = null;
        for (String line : Files.readAllLines(Path.of("..", "docs", "SPEC.md"))) {
            Matcher heading = Pattern.compile("^### (R\\d+\\.\\d+) ").matcher(line);
            if (heading.find()) {
                current = sections.computeIfAbsent(heading.group(1), id -> new StringBuilder());
            } else if (line.startsWith("## ")) {
                current = null;
            } else if (current != null) {
                current.append(line).append('\n');
            }
        }
        Set<String> ids = new TreeSet<>();
        sections.forEach((id, text) -> {
            String flat = text.toString().replace('\n', ' ').toLowerCase(java.util.Locale.ROOT);
            if (flat.contains("needs `storeuri()`") || flat.contains("need `storeuri()`")) {
                ids.add(id);
            }
        });
        return ids;
    }

    @Test
    void tckMdListsExactlyTheRulesThatNeedStoreUri() throws IOException {
        assertEquals(fromTheKitsCode(), fromTckMd(), "docs/TCK.md's row for storeUri() (the list authors read) and the"
                + " kit's code disagree on which rules are skipped without the hook");
    }

    @Test
    void specMdNotesTheSameRules() throws IOException {
        assertEquals(fromTheKitsCode(), fromSpecMd(), "docs/SPEC.md's \"needs `storeUri()`\" notes and the kit's code"
                + " disagree on which rules are skipped without the hook");
    }
}
