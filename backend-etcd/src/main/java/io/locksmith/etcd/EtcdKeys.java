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

    static String encode(String part) {
        return part.replace("%", "%25").replace("/", "%2F");
    }

    static ByteSequence bytes(String text) {
        return ByteSequence.from(text, StandardCharsets.UTF_8);
    }
}
