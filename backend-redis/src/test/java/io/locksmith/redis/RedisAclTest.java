package io.locksmith.redis;

import io.locksmith.tck.server.SecretChecks;
import io.locksmith.LockClient;
import io.locksmith.LockException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Every right of the ACL docs/REDIS.md gives is needed: a user with all but one fails when the client opens, with
 * an error that names the refused command (and its key or channel) and never the password. A right only one Redis
 * client needs is dropped for that client, and must not matter to the others.
 */
class RedisAclTest {

    /** The rights that only some transports need; every other right is needed by all three. */
    private static final java.util.Map<String, Set<String>> ONLY_FOR = java.util.Map.of(
            "+ping", Set.of("redisson"),
            "+script|load", Set.of("redisson"),
            "+client|setname", Set.of("jedis", "lettuce"));

    static RedisServer server;

    @BeforeAll
    static void startServer() {
        server = RedisServer.start();
    }

    @AfterAll
    static void stopServer() {
        if (server != null) {
            server.close();
        }
    }

    static List<Arguments> eachRightAndClient() {
        List<Arguments> cases = new ArrayList<>();
        for (String rule : RedisAclSupport.documentedRules()) {
            if (!(rule.startsWith("+") || rule.startsWith("~") || rule.startsWith("&"))) {
                continue; // on, the password, the resets, -@all: they take rights away
            }
            if (ONLY_FOR.containsKey(rule)) {
                for (String client : List.of("jedis", "redisson", "lettuce")) {
                    cases.add(Arguments.of(rule, client, ONLY_FOR.get(rule).contains(client)));
                }
            } else {
                cases.add(Arguments.of(rule, "jedis", true));
            }
        }
        return cases;
    }

    @ParameterizedTest(name = "without {0} over {1}: fails {2}")
    @MethodSource("eachRightAndClient")
    void aUserWithoutOneRightOfTheDocumentedAclFailsAtOpenNamingIt(String rule, String client, boolean needed) {
        String user = "without" + Integer.toHexString(rule.hashCode()) + client;
        List<String> rules = new ArrayList<>(RedisAclSupport.documentedRules());
        assertTrue(rules.remove(rule));
        RedisAclSupport.setUser(server, user, rules);
        String uri = RedisAclSupport.uri(server, user, "timeout=1s&client=" + client);
        if (!needed) {
            try (LockClient locks = LockClient.open(uri); var lease = locks.lock("acl-" + user).acquire(Duration.ofSeconds(2))) {
                assertTrue(lease.isHeld());
            }
            return;
        }
        LockException error = assertThrows(LockException.class, () -> LockClient.open(uri).close(),
                "a user without " + rule + " opened a client over " + client);
        String message = error.getMessage();
        assertTrue(expected(rule).matcher(message).find(), "expected " + expected(rule) + " in: " + message);
        assertTrue(message.contains(server.address()), message);
        SecretChecks.assertNoSecret(error, RedisAclSupport.PASSWORD);
    }

    /**
     * What the error must name: for a command, the command as Redis' NOPERM names it ({@code 'client|setname'}) or as
     * the start-up check does ({@code CLIENT setname}, {@code HGET locksmith:{...}}); for a key or channel pattern, a
     * command refused on a key or channel of it.
     */
    private static Pattern expected(String rule) {
        String pattern = rule.substring(1);
        if (rule.startsWith("~") || rule.startsWith("&")) {
            String prefix = Pattern.quote(pattern.substring(0, pattern.length() - 1));
            return Pattern.compile("[:,] [A-Z]+ " + prefix);
        }
        String[] words = pattern.split("\\|");
        String checkForm = words[0].toUpperCase(Locale.ROOT) + (words.length > 1 ? " " + words[1] : "");
        return Pattern.compile("'" + Pattern.quote(pattern) + "'|[:,] " + Pattern.quote(checkForm) + "( [^,.]*)?[,.]");
    }
}
