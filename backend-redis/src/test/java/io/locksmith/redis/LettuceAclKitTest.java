package io.locksmith.redis;

import io.locksmith.LockClient;
import io.locksmith.tck.TckBase;
import io.locksmith.tck.kits.ExclusionKit;
import io.locksmith.tck.kits.FencingKit;
import io.locksmith.tck.kits.OwnershipKit;
import io.locksmith.tck.kits.WaitingKit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * The kit's basic rules (exclusion, ownership, fencing, waiting by pub/sub) through Lettuce as a Redis user limited to
 * the ACL of docs/REDIS.md, read from the doc: Lettuce sends its own commands on connect (and it must need no more).
 */
class LettuceAclKitTest extends TckBase implements ExclusionKit, OwnershipKit, FencingKit, WaitingKit {

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
        return RedisAclSupport.uri(server, RedisAclSupport.USER, "client=lettuce");
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
