package io.locksmith.redis;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * One Lua script of the lock protocol, read once from the class path, with the SHA-1 the server knows it by.
 * The SHA is computed here, so the first call needs no {@code SCRIPT LOAD}: it is an {@code EVALSHA}, and
 * only a server that does not know the script yet (new, restarted, flushed) gets the text with {@code EVAL}.
 */
record LuaScript(String name, String text, String sha) {

    /** The functions of the waiter queue and the handoff, included before the scripts that grant or free a lock. */
    private static final String HANDOFF = read("handoff");

    static final LuaScript ACQUIRE = load("acquire", HANDOFF);
    static final LuaScript RELEASE = load("release", HANDOFF);
    static final LuaScript RELEASE_ABANDONED = load("release_abandoned", HANDOFF);
    static final LuaScript CANCEL = load("cancel", HANDOFF);
    static final LuaScript RENEW = load("renew");
    static final LuaScript RENEW_ALL = load("renew_all");
    static final LuaScript INSPECT = load("inspect");
    static final LuaScript SCAN_LOCKS = load("scan_locks");
    static final LuaScript RAISE_FENCE = load("raise_fence");
    static final LuaScript REGISTRY_PUT = load("registry_put");
    static final LuaScript REGISTRY_LIST = load("registry_list");
    static final LuaScript REGISTRY_REMOVE = load("registry_remove");
    static final LuaScript CHECK_ACL = load("check_acl");

    static LuaScript load(String name) {
        return load(name, "");
    }

    /** The script {@code name}, with {@code included} (Lua functions it calls) before its own text. */
    private static LuaScript load(String name, String included) {
        String text = included + read(name);
        return new LuaScript(name, text, sha1(text));
    }

    private static String read(String name) {
        String resource = name + ".lua";
        try (InputStream in = LuaScript.class.getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException("Lua script " + resource + " is missing from the locksmith-redis jar");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read Lua script " + resource, e);
        }
    }

    private static String sha1(String text) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-1").digest(text.getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(digest);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("the JVM has no SHA-1", e);
        }
    }
}
