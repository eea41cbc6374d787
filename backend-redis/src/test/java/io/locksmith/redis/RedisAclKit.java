package io.locksmith.redis;

import io.locksmith.LockClient;
import io.locksmith.tck.TckBase;
import io.locksmith.tck.kits.ExclusionKit;
import io.locksmith.tck.kits.FencingKit;
import io.locksmith.tck.kits.OwnershipKit;
import io.locksmith.tck.kits.WaitingKit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;

/**
 * The kit's basic rules (exclusion, ownership, fencing, waiting by pub/sub) through one Redis client as a Redis user
 * limited to the ACL of docs/REDIS.md, read from the doc: each client sends its own commands on connect (and it must
 * need no more). A subclass per client names it; Jedis runs the whole store kit as that user, over TLS
 * ({@link RedisAclTckTest}).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class RedisAclKit extends TckBase implements ExclusionKit, OwnershipKit, FencingKit, WaitingKit {

    private RedisServer server;

    /** The {@code client=} of the URI. */
    protected abstract String client();

    @BeforeAll
    void startServer() {
        server = RedisServer.start();
        RedisAclSupport.setUser(server, RedisAclSupport.USER, RedisAclSupport.documentedRules());
    }

    @AfterAll
    void stopServer() {
        if (server != null) {
            server.close();
        }
    }

    @Override
    protected String storeUri() {
        return RedisAclSupport.uri(server, RedisAclSupport.USER, "client=" + client());
    }

    @Override
    protected LockClient newClient() {
        return LockClient.open(storeUri());
    }

    @Override
    protected void expireBehindClientsBack(String lockName) {
        server.expireNow(lockName);
    }
}
