package io.locksmith.redis;

import io.locksmith.LockConfigurationException;

import java.util.ArrayList;
import java.util.List;

/**
 * What a lock client's Redis user must be allowed, and the start-up check of it: every command the client sends
 * (the scripts' {@code EVALSHA} and {@code EVAL}, the commands inside the scripts, which Redis checks one by one,
 * {@code SUBSCRIBE} for waiting, and {@code WAIT} where replicas must acknowledge), on the keys and channels it
 * uses. The check asks the server with {@code redis.acl_check_cmd} (Redis 7.0 and later), so a user that lacks one
 * right fails at start, naming it, instead of at the first release that publishes or the first listing that scans.
 * The ACL that grants exactly this is in {@code docs/REDIS.md} ("Access control").
 */
final class RedisAcl {

    /** A command with the arguments it is checked with: a representative key or channel of each kind. */
    record Check(List<String> words) {
        Check(String... words) {
            this(List.of(words));
        }

        @Override
        public String toString() {
            return String.join(" ", words);
        }
    }

    private RedisAcl() {
    }

    /**
     * The checks for a client on one node: the lock protocol's commands, {@code WAIT} only where writes wait for
     * replicas, and {@code ownCommands}, what the Redis client sends on its own ({@link RedisCommands#ownCommands()}).
     */
    static List<Check> checks(boolean waitsForReplicas, List<List<String>> ownCommands) {
        String name = "locksmith-acl-check";
        String lock = RedisLockKeys.lockKey(name);
        String fence = RedisLockKeys.fenceKey(name);
        String queue = RedisLockKeys.queueKey(name);
        String waiting = RedisLockKeys.waitingKey(name);
        String abandoned = RedisLockKeys.abandonedKey(name, "owner");
        String record = RedisLockKeys.registryKey("key");
        String index = RedisLockKeys.registryIndex();
        String channel = RedisLockKeys.releaseChannel(name);
        List<Check> checks = new ArrayList<>(List.of(
                new Check("evalsha", LuaScript.INSPECT.sha(), "1", lock),
                new Check("eval", "return 0", "1", lock),
                new Check("hget", lock, "owner"),
                new Check("hmget", lock, "owner"),
                new Check("hset", lock, "owner", ""),
                new Check("hdel", lock, "owner"),
                new Check("exists", lock),
                new Check("del", lock),
                new Check("pexpire", lock, "1"),
                new Check("pttl", lock),
                new Check("get", fence),
                new Check("set", fence, "1", "get"),
                new Check("zadd", queue, "1", "owner"),
                new Check("zrange", queue, "0", "0"),
                new Check("zrem", queue, "owner"),
                new Check("hset", waiting, "owner", ""),
                new Check("set", abandoned, "1"),
                new Check("get", record),
                new Check("set", record, "1"),
                new Check("del", record),
                new Check("zadd", index, "1", "key"),
                new Check("zrange", index, "0", "0"),
                new Check("zrem", index, "key"),
                new Check("zremrangebyscore", index, "0", "0"),
                new Check("scan", "0"),
                new Check("time"),
                new Check("publish", channel, ""),
                new Check("subscribe", channel),
                new Check("unsubscribe", channel)));
        if (waitsForReplicas) {
            checks.add(new Check("wait", "1", "0"));
        }
        ownCommands.forEach(words -> checks.add(new Check(words)));
        return checks;
    }

    /** The script's arguments: each check as its word count followed by its words. */
    static List<String> arguments(List<Check> checks) {
        List<String> args = new ArrayList<>();
        for (Check check : checks) {
            args.add(Integer.toString(check.words().size()));
            args.addAll(check.words());
        }
        return args;
    }

    /**
     * Fails if the server refused any check.
     *
     * @param refused the 1-based numbers of the refused checks, as the script answers
     * @throws LockConfigurationException naming each refused command with its key or channel
     */
    static void requireAllowed(List<Check> checks, List<?> refused, String store) {
        if (refused.isEmpty()) {
            return;
        }
        throw new LockConfigurationException(store + ": the Redis user may not run what a lock client sends: "
                + String.join(", ", denied(checks, refused)) + ". Grant the user the ACL of docs/REDIS.md ('Access"
                + " control'): the commands, the keys ~locksmith:* and ~locksmith-registry:*, and the channels"
                + " &locksmith:*");
    }

    /**
     * What a user may run beyond a lock client's needs that lets it hurt the locks or the server, each with what it is
     * called in a message: checked like {@link #checks}, each one an example of its kind (a key outside the lock
     * patterns, a channel outside theirs).
     */
    static java.util.Map<String, Check> beyondLocks() {
        java.util.Map<String, Check> beyond = new java.util.LinkedHashMap<>();
        beyond.put("FLUSHALL", new Check("flushall"));
        beyond.put("FLUSHDB", new Check("flushdb"));
        beyond.put("CONFIG SET", new Check("config", "set", "appendonly", "no"));
        beyond.put("ACL SETUSER", new Check("acl", "setuser", "someone"));
        beyond.put("SCRIPT FLUSH", new Check("script", "flush"));
        beyond.put("DEBUG", new Check("debug", "sleep", "0"));
        beyond.put("SHUTDOWN", new Check("shutdown"));
        beyond.put("REPLICAOF", new Check("replicaof", "no", "one"));
        beyond.put("CLIENT KILL", new Check("client", "kill", "id", "1"));
        beyond.put("KEYS", new Check("keys", "*"));
        beyond.put("DEL on keys outside ~locksmith:*", new Check("del", "another-application:key"));
        beyond.put("PUBLISH outside &locksmith:*", new Check("publish", "another-application:channel", ""));
        return beyond;
    }

    /**
     * Each refused check by its command and key or channel, e.g. {@code PUBLISH locksmith:{x}:released}.
     *
     * @param refused the 1-based numbers of the refused checks, as the script answers
     */
    static List<String> denied(List<Check> checks, List<?> refused) {
        List<String> denied = new ArrayList<>();
        for (Object number : refused) {
            Check check = checks.get(((Number) number).intValue() - 1);
            // The command and its key or channel; not every argument (a SHA, a count) says anything.
            String command = check.words().get(0);
            boolean namesKeyOrChannel = check.words().size() > 1 && !command.startsWith("eval")
                    && !List.of("scan", "wait", "ping").contains(command);
            denied.add(namesKeyOrChannel ? command.toUpperCase(java.util.Locale.ROOT) + " " + check.words().get(1)
                    : command.toUpperCase(java.util.Locale.ROOT));
        }
        return denied;
    }
}
