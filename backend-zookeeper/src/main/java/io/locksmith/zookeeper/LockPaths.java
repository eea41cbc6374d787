package io.locksmith.zookeeper;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * Where locks live in the tree, and how lock names and owner ids become znode names.
 *
 * <pre>
 * {base}/{encoded lock name}                   container node, one per lock name
 * {base}/{encoded lock name}/{owner}~0000000042 ephemeral sequential node, one per holder or waiter
 * </pre>
 *
 * <p>A lock name becomes exactly one path segment, so {@code a/b} and {@code a} are siblings, never parent
 * and child. Encoding is percent-encoding of UTF-8 bytes: letters, digits and {@code - _ . :} stay as they
 * are, every other byte (including {@code /}, {@code %}, {@code ~}, spaces and non-ASCII) becomes
 * {@code %XX}. The segments {@code .} and {@code ..}, which ZooKeeper refuses, are written {@code %2E} and
 * {@code %2E%2E}. The mapping is injective, so two names never share a node.
 *
 * <p>The owner id is the first part of the node name, so an owner's node can be found again after an
 * ambiguous create (the reply lost with the connection) without reading any data. {@code ~} never occurs in
 * an encoded owner id, so one owner's prefix is never a prefix of another's.
 */
final class LockPaths {

    /** Between the encoded owner id and the 10-digit sequence number ZooKeeper appends. */
    static final char SEQUENCE_SEPARATOR = '~';
    private static final int SEQUENCE_DIGITS = 10;

    /** Orders lock nodes by their sequence number: the queue order. */
    static final Comparator<String> QUEUE_ORDER = Comparator.comparing(LockPaths::sequence);

    private final String base;

    /** @param base an absolute, validated path without a trailing slash, e.g. {@code /locksmith} */
    LockPaths(String base) {
        this.base = base;
    }

    String base() {
        return base;
    }

    /** The container node of a lock name. */
    String lockPath(String lockName) {
        return base + "/" + encodeSegment(lockName);
    }

    /** The prefix under which {@code ownerId}'s sequential node is created. */
    String nodePrefix(String lockName, String ownerId) {
        return lockPath(lockName) + "/" + ownerPrefix(ownerId);
    }

    /** The first part of the node names an owner creates: the encoded id and the separator. */
    static String ownerPrefix(String ownerId) {
        return encodeSegment(ownerId) + SEQUENCE_SEPARATOR;
    }

    /** Whether {@code child} is a lock node written by this library (others are ignored). */
    static boolean isLockNode(String child) {
        int separator = child.lastIndexOf(SEQUENCE_SEPARATOR);
        if (separator < 0 || child.length() - separator - 1 != SEQUENCE_DIGITS) {
            return false;
        }
        for (int i = separator + 1; i < child.length(); i++) {
            if (!Character.isDigit(child.charAt(i))) {
                return false;
            }
        }
        return true;
    }

    /** The lock nodes among {@code children}, in queue order (lowest sequence first: the holder). */
    static List<String> queue(List<String> children) {
        List<String> nodes = new ArrayList<>(children.size());
        for (String child : children) {
            if (isLockNode(child)) {
                nodes.add(child);
            }
        }
        nodes.sort(QUEUE_ORDER);
        return nodes;
    }

    static String sequence(String child) {
        return child.substring(child.length() - SEQUENCE_DIGITS);
    }

    /** The last segment of a path. */
    static String nodeName(String path) {
        return path.substring(path.lastIndexOf('/') + 1);
    }

    /** The path without its last segment. */
    static String parent(String path) {
        int slash = path.lastIndexOf('/');
        return slash <= 0 ? "/" : path.substring(0, slash);
    }

    /** Percent-encodes {@code text} into one safe znode name; see the class comment. */
    static String encodeSegment(String text) {
        if (text.equals(".")) {
            return "%2E";
        }
        if (text.equals("..")) {
            return "%2E%2E";
        }
        StringBuilder encoded = new StringBuilder(text.length() + 16);
        for (byte b : text.getBytes(StandardCharsets.UTF_8)) {
            int c = b & 0xFF;
            if (isSafe(c)) {
                encoded.append((char) c);
            } else {
                encoded.append('%').append(Character.toUpperCase(Character.forDigit(c >> 4, 16)))
                        .append(Character.toUpperCase(Character.forDigit(c & 0xF, 16)));
            }
        }
        return encoded.toString();
    }

    /**
     * Reverses {@link #encodeSegment}.
     *
     * @throws IllegalArgumentException if {@code segment} is not percent-encoded correctly
     */
    static String decodeSegment(String segment) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(segment.length());
        for (int i = 0; i < segment.length(); i++) {
            char c = segment.charAt(i);
            if (c == '%') {
                if (i + 2 >= segment.length()) {
                    throw new IllegalArgumentException("truncated escape in '" + segment + "'");
                }
                int high = Character.digit(segment.charAt(i + 1), 16);
                int low = Character.digit(segment.charAt(i + 2), 16);
                if (high < 0 || low < 0) {
                    throw new IllegalArgumentException("bad escape in '" + segment + "'");
                }
                bytes.write(high << 4 | low);
                i += 2;
            } else {
                bytes.write(c);
            }
        }
        return bytes.toString(StandardCharsets.UTF_8);
    }

    private static boolean isSafe(int c) {
        return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
                || c == '-' || c == '_' || c == '.' || c == ':';
    }
}
