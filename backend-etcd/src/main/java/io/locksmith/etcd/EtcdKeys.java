package io.locksmith.etcd;

import io.etcd.jetcd.ByteSequence;

import java.nio.charset.StandardCharsets;

/**
 * The key layout of a lock: {@code prefix + encode(name) + "/" + encode(ownerId)}. Every holder and waiter
 * of a lock has its own key under the name's directory; the one with the smallest create revision holds.
 * Names and owner ids are encoded so that they contain no {@code /}: otherwise the directory of lock
 * {@code a} would also list the keys of lock {@code a/b}.
 */
final class EtcdKeys {

    private final String prefix;

    EtcdKeys(String prefix) {
        this.prefix = prefix;
    }

    /** The directory holding the keys of every holder and waiter of {@code name}. */
    ByteSequence directory(String name) {
        return bytes(prefix + encode(name) + "/");
    }

    /** The key of {@code ownerId} on lock {@code name}. */
    ByteSequence key(String name, String ownerId) {
        return bytes(prefix + encode(name) + "/" + encode(ownerId));
    }

    /** Where the keys of every lock whose name starts with {@code namePrefix} are: encoding keeps prefixes. */
    ByteSequence namesStartingWith(String namePrefix) {
        return bytes(prefix + encode(namePrefix));
    }

    /** The lock name a holder's or waiter's key belongs to; null for a key that is not of this layout. */
    String nameOf(ByteSequence key) {
        String text = key.toString(StandardCharsets.UTF_8);
        int slash = text.lastIndexOf('/');
        if (!text.startsWith(prefix) || slash < prefix.length()) {
            return null;
        }
        return decode(text.substring(prefix.length(), slash));
    }

    static String encode(String part) {
        return part.replace("%", "%25").replace("/", "%2F");
    }

    /** The inverse of {@link #encode}; null if {@code part} has a {@code %} that encode would not write. */
    static String decode(String part) {
        StringBuilder decoded = new StringBuilder(part.length());
        for (int i = 0; i < part.length(); i++) {
            char c = part.charAt(i);
            if (c != '%') {
                decoded.append(c);
            } else if (part.startsWith("%25", i)) {
                decoded.append('%');
                i += 2;
            } else if (part.startsWith("%2F", i)) {
                decoded.append('/');
                i += 2;
            } else {
                return null;
            }
        }
        return decoded.toString();
    }

    static ByteSequence bytes(String text) {
        return ByteSequence.from(text, StandardCharsets.UTF_8);
    }
}
