package io.locksmith.redis;

import io.locksmith.Capability;
import io.locksmith.tck.StoreTck;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The store kit through Jedis (the default transport) over TLS, as a Redis user limited to the ACL of docs/REDIS.md
 * ("Access control"), read from the doc: a command, key or channel the backend uses beyond it fails a rule here.
 * The server speaks TLS only ({@code port 0}, certificates the harness made; the client trusts their authority with
 * {@code trustStore=} and checks the host name), so every rule ran over TLS, the test's own connections included.
 * The default user of the server has a password and is only used by the test's own helpers; another ACL user
 * ({@code orders-app}, every command but the dangerous ones on {@code orders:*}) is R2.6's attacker.
 */
class RedisAclTckTest extends StoreTck {

    private static RedisTlsSupport tls;
    static RedisServer server;

    @BeforeAll
    static void startServer() {
        tls = new RedisTlsSupport(); // the TLS-only server, with the documented user on it
        server = tls.server;
        // R2.6: another application's user, with every command but the dangerous ones on its own keys, and no
        // client without credentials (the default user gets a password the test's helpers use).
        RedisAclSupport.setUser(server, OTHER_USER, java.util.List.of("on", ">" + OTHER_PASSWORD, "~orders:*", "&*",
                "+@all", "-@dangerous"));
        server.protectDefaultUser(ADMIN_PASSWORD);
    }

    private static final String OTHER_USER = "orders-app";
    private static final String OTHER_PASSWORD = "orders-Pw-51c2";
    private static final String ADMIN_PASSWORD = "admin-Pw-0b9e";

    /**
     * R2.6: a Jedis connection over TLS as the lock user, another ACL user, the lock user with a wrong password, or
     * nobody.
     */
    @Override
    protected io.locksmith.tck.RawStoreSession rawStoreSession(io.locksmith.tck.RawStoreSession.Identity identity) {
        return new RedisRawSession(switch (identity) {
            case APPLICATION -> server.jedisAs(RedisAclSupport.USER, RedisAclSupport.PASSWORD);
            case OTHER_USER -> server.jedisAs(OTHER_USER, OTHER_PASSWORD);
            case WRONG_PASSWORD -> server.jedisAs(RedisAclSupport.USER, "wrong-" + RedisAclSupport.PASSWORD);
            case NO_CREDENTIALS -> server.jedisAs(null, null);
        });
    }

    @AfterAll
    static void stopServer() {
        if (tls != null) {
            tls.close();
        }
    }

    @Override
    protected String storeUri() {
        return tls.uri("jedis");
    }

    @Override
    protected void expireBehindClientsBack(String lockName) {
        server.expireNow(lockName);
    }

    /** What docs/REDIS.md promises, and ACCESS_CONTROL: the user authenticates, the server refuses anonymous clients. */
    @Override
    protected Set<Capability> expectedCapabilities() {
        Set<Capability> expected = java.util.EnumSet.copyOf(RedisTckSupport.CAPABILITIES);
        expected.add(Capability.ACCESS_CONTROL);
        return expected;
    }

    /** The premise: the user is limited (it may not run FLUSHALL, nor touch a key outside the lock prefixes). */
    @Test
    void theUserIsLimited() {
        try (var jedis = server.jedis()) {
            assertTrue(jedis.aclDryRun(RedisAclSupport.USER, "flushall").contains("no permissions"));
            assertTrue(jedis.aclDryRun(RedisAclSupport.USER, "get", "orders:1").contains("no permissions"));
            assertTrue(jedis.aclDryRun(RedisAclSupport.USER, "publish", "news", "x").contains("no permissions"));
        }
    }

    /** The other premise: the server has no plain port, so every connection of the kit and its hooks was TLS. */
    @Test
    void theServerSpeaksTlsOnly() {
        tls.assertTlsOnly();
    }
}
