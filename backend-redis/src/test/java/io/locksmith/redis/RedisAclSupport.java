package io.locksmith.redis;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/** The ACL docs/REDIS.md gives for a lock client, read from the doc itself so that the tests hold it to its word. */
final class RedisAclSupport {

    static final String USER = "locksmith";
    static final String PASSWORD = "acl-Pw-7d1e";
    private static final Path DOC = Path.of("..", "docs", "REDIS.md");
    private static final String PREFIX = "ACL SETUSER " + USER + " ";

    private RedisAclSupport() {
    }

    /** The words of the documented {@code ACL SETUSER} line after the user name, with the test's password. */
    static List<String> documentedRules() {
        try {
            String line = Files.readAllLines(DOC).stream().filter(l -> l.startsWith(PREFIX)).findFirst()
                    .orElseThrow(() -> new IllegalStateException(DOC + " has no line starting with '" + PREFIX + "'"));
            List<String> rules = new ArrayList<>(Arrays.asList(line.substring(PREFIX.length()).strip().split("\\s+")));
            rules.replaceAll(rule -> rule.equals(">CHANGE-ME") ? ">" + PASSWORD : rule);
            return rules;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + DOC.toAbsolutePath(), e);
        }
    }

    /**
     * The documented rules with what {@code deployment} ({@code sentinel} or {@code cluster}) adds: the words of the
     * doc's line starting {@code "+ DEPLOYMENT: "} in "Access control".
     */
    static List<String> documentedRules(String deployment) {
        String prefix = "+ " + deployment + ": ";
        try {
            String line = Files.readAllLines(DOC).stream().filter(l -> l.startsWith(prefix)).findFirst()
                    .orElseThrow(() -> new IllegalStateException(DOC + " has no line starting with '" + prefix + "'"));
            List<String> rules = new ArrayList<>(documentedRules());
            rules.addAll(Arrays.asList(line.substring(prefix.length()).strip().split("\\s+")));
            return rules;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + DOC.toAbsolutePath(), e);
        }
    }

    /** Creates (or replaces) {@code user} on {@code server} with exactly {@code rules}. */
    static void setUser(RedisServer server, String user, List<String> rules) {
        try (var jedis = server.jedis()) {
            List<String> args = new ArrayList<>(List.of(user, "reset"));
            args.addAll(rules);
            jedis.aclSetUser(args.get(0), args.subList(1, args.size()).toArray(String[]::new));
        }
    }

    /** A URI on {@code server} as the documented user, with {@code parameters} (without {@code ?}, may be empty). */
    static String uri(RedisServer server, String user, String parameters) {
        return "redis://" + user + ":" + PASSWORD + "@" + server.address() + (parameters.isEmpty() ? "" : "?" + parameters);
    }
}
