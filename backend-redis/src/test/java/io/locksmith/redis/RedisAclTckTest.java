package io.locksmith.redis;

import io.locksmith.Capability;
import io.locksmith.tck.StoreTck;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The store kit through Jedis (the default transport) as a Redis user limited to the ACL of docs/REDIS.md
 * ("Access control"), read from the doc: a command, key or channel the backend uses beyond it fails a rule here.
 * The default user of the server has no password and is only used by the test's own helpers.
 */
class RedisAclTckTest extends StoreTck {

    static RedisServer server;

    @BeforeAll
    static void startServer() {
        server = RedisServer.start();
        RedisAclSupport.setUser(server, RedisAclSupport.USER, RedisAclSupport.documentedRules());
    }

    @AfterAll
    static void stopServer() {
        if (server != null) {
            server.close();
        }
    }

    @Override
    protected String storeUri() {
        return RedisAclSupport.uri(server, RedisAclSupport.USER, "");
    }

    @Override
    protected void expireBehindClientsBack(String lockName) {
        server.expireNow(lockName);
    }

    @Override
    protected Set<Capability> expectedCapabilities() {
        return RedisTckSupport.CAPABILITIES;
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
}
