package io.locksmith.tck.kits;

import java.util.SplittableRandom;

/**
 * A seeded generator of pairs of distinct, valid lock names that a careless store confuses: names that
 * differ only in case, in surrounding or inner whitespace, after a long shared prefix (anywhere up to the
 * 512-character maximum), in a separator against another separator or its percent-encoding, in a non-ASCII
 * character against its ASCII look-alike or nothing, or that collide under {@link String#hashCode()}.
 * The same seed gives the same pairs, so a failure reruns from its seed. The separator pairs and look-alikes
 * stores confuse most each come up once in the first {@code 7 x 12} pairs, whatever the seed.
 */
final class ConfusableNames {

    /** The longest name the client accepts (R8.2). */
    static final int MAX_LENGTH = 512;

    private static final String[] SEPARATORS = {"/", "_", "%2F", "%2f", ":", "-", ".", "\\", "|", "%", "%25", "+", " ", "#", "{", "}", "*"};
    /** The separator pairs stores confuse most; each comes up once per run, then random pairs follow. */
    private static final String[][] SEPARATOR_PAIRS = {
            {"/", "_"}, {"/", "%2F"}, {"%2F", "%2f"}, {"%", "%25"}, {"+", " "}, {":", "_"}, {"/", "\\"},
            {"/", "-"}, {".", "_"}, {"%2F", "_"}, {"{", "}"}, {"/", ":"}};
    private static final String[][] LOOK_ALIKES = {
            {"e", "é"}, {"a", "а"}, {"o", "ο"}, {"ss", "ß"}, {"", "名"}, {"", "ключ"}, {"", "\uD83D\uDD12"},
            {"i", "ı"}, {"k", "K"}, {"", "\u00A0"}, {"x", "x\u0301"}, {"A", "Ａ"}};
    private static final String[] SCRIPTS = {"ключ", "名前", "مفتاح", "κλειδί", "चाबी", "열쇠", "\uD83D\uDD11"};
    private static final int FAMILIES = 7;

    private ConfusableNames() {
    }

    /** A pair of distinct valid names, both starting with {@code prefix}; the family cycles with {@code index}. */
    static String[] pair(String prefix, SplittableRandom random, int index) {
        String core = word(random, 1 + random.nextInt(8));
        String[] pair = switch (index % FAMILIES) {
            case 0 -> casePair(core, random);
            case 1 -> whitespacePair(core, index / FAMILIES);
            case 2 -> longPrefixPair(prefix, random, index / FAMILIES);
            case 3 -> separatorPair(core, random, index / FAMILIES);
            case 4 -> lookAlikePair(core, random, index / FAMILIES);
            case 5 -> hashCollidingPair(random);
            default -> scriptPair(core, random);
        };
        String first = pair[0].startsWith(prefix) ? pair[0] : prefix + pair[0];
        String second = pair[1].startsWith(prefix) ? pair[1] : prefix + pair[1];
        if (first.length() > MAX_LENGTH || second.length() > MAX_LENGTH || first.equals(second)) {
            return pair(prefix, random, index + FAMILIES);
        }
        return new String[]{first, second};
    }

    private static String[] casePair(String core, SplittableRandom random) {
        String upper = core.toUpperCase(java.util.Locale.ROOT);
        return random.nextBoolean() ? new String[]{core, upper} : new String[]{"Lock-" + core, "lock-" + core};
    }

    /** Trailing, leading, doubled inner and inserted whitespace, each in turn: every kind comes up every run. */
    private static String[] whitespacePair(String core, int occurrence) {
        return switch (occurrence % 4) {
            case 0 -> new String[]{core, core + " "};
            case 1 -> new String[]{core, " " + core};
            case 2 -> new String[]{core + " a", core + "  a"};
            default -> new String[]{core + "a", core + " a"};
        };
    }

    /** Equal up to a length between 100 and the maximum, then one differing last character. */
    private static String[] longPrefixPair(String prefix, SplittableRandom random, int occurrence) {
        // The maximum, just past the common limits of 255 and 256, and just under the maximum come up every run.
        int[] edges = {MAX_LENGTH, 257, MAX_LENGTH - 1, 501, 300, 400};
        int length = occurrence < edges.length ? edges[occurrence] : 100 + random.nextInt(MAX_LENGTH - 100 + 1);
        StringBuilder shared = new StringBuilder(prefix);
        while (shared.length() < length - 1) {
            shared.append((char) ('a' + random.nextInt(26)));
        }
        String common = shared.substring(0, length - 1);
        return new String[]{common + "x", common + "y"};
    }

    private static String[] separatorPair(String core, SplittableRandom random, int occurrence) {
        String one;
        String other;
        if (occurrence < SEPARATOR_PAIRS.length) {
            one = SEPARATOR_PAIRS[occurrence][0];
            other = SEPARATOR_PAIRS[occurrence][1];
        } else {
            one = SEPARATORS[random.nextInt(SEPARATORS.length)];
            do {
                other = SEPARATORS[random.nextInt(SEPARATORS.length)];
            } while (other.equals(one));
        }
        String tail = word(random, 1 + random.nextInt(5));
        return new String[]{core + one + tail, core + other + tail};
    }

    private static String[] lookAlikePair(String core, SplittableRandom random, int occurrence) {
        String[] pair = LOOK_ALIKES[occurrence < LOOK_ALIKES.length ? occurrence : random.nextInt(LOOK_ALIKES.length)];
        return random.nextBoolean() ? new String[]{core + pair[0] + "z", core + pair[1] + "z"}
                : new String[]{core + pair[1] + "z", core + pair[0] + "z"};
    }

    /** "Aa" and "BB" have one {@link String#hashCode()}: so do any two strings made of them, block by block. */
    private static String[] hashCollidingPair(SplittableRandom random) {
        int blocks = 2 + random.nextInt(6);
        StringBuilder one = new StringBuilder();
        StringBuilder other = new StringBuilder();
        boolean differs = false;
        for (int i = 0; i < blocks; i++) {
            boolean a = random.nextBoolean();
            boolean b = i == blocks - 1 && !differs ? !a : random.nextBoolean();
            one.append(a ? "Aa" : "BB");
            other.append(b ? "Aa" : "BB");
            differs |= a != b;
        }
        return new String[]{one.toString(), other.toString()};
    }

    private static String[] scriptPair(String core, SplittableRandom random) {
        String script = SCRIPTS[random.nextInt(SCRIPTS.length)];
        String otherScript = SCRIPTS[(random.nextInt(SCRIPTS.length - 1) + 1 + java.util.Arrays.asList(SCRIPTS).indexOf(script)) % SCRIPTS.length];
        return random.nextBoolean() ? new String[]{core + ":" + script, core + ":" + otherScript}
                : new String[]{core + ":" + script, core + ":"};
    }

    private static String word(SplittableRandom random, int length) {
        StringBuilder word = new StringBuilder();
        for (int i = 0; i < length; i++) {
            word.append((char) ('a' + random.nextInt(26)));
        }
        return word.toString();
    }

    /** A name for a failure message: quoted, its length, and its code points when it is not plain ASCII. */
    static String describe(String name) {
        StringBuilder text = new StringBuilder("'").append(name.length() > 80
                ? name.substring(0, 40) + "..." + name.substring(name.length() - 30) : name).append("' (")
                .append(name.length()).append(" chars");
        if (!name.chars().allMatch(c -> c >= 0x21 && c < 0x7f)) {
            text.append(", code points ");
            name.codePoints().filter(c -> c < 0x21 || c >= 0x7f)
                    .forEach(c -> text.append(String.format("U+%04X ", c)));
        }
        return text.append(")").toString();
    }
}
