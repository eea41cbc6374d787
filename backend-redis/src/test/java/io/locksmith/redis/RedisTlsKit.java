package io.locksmith.redis;

import io.locksmith.LockClient;
import io.locksmith.tck.TckBase;
import io.locksmith.tck.kits.ExclusionKit;
import io.locksmith.tck.kits.ExpiryKit;
import io.locksmith.tck.kits.FencingKit;
import io.locksmith.tck.kits.OwnershipKit;
import io.locksmith.tck.kits.WaitingKit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The kit's basic rules (exclusion, ownership, fencing, expiry, waiting by pub/sub) through one Redis client over TLS,
 * trusting the authority of the harness's certificates with {@code trustStore=} and checking the host name, against a
 * TLS-only redis-server, as a user limited to the ACL of docs/REDIS.md with a password. A subclass per client names
 * it: Redisson and Lettuce (Jedis runs the whole kit over TLS as that user in {@link RedisAclTckTest}).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class RedisTlsKit extends TckBase implements ExclusionKit, OwnershipKit, FencingKit, ExpiryKit, WaitingKit {

    private RedisTlsSupport tls;

    /** The {@code client=} of the URI: {@code jedis}, {@code redisson} or {@code lettuce}. */
    protected abstract String client();

    @BeforeAll
    void startServer() {
        tls = new RedisTlsSupport();
    }

    @AfterAll
    void stopServer() {
        if (tls != null) {
            tls.close();
        }
    }

    @Override
    protected String storeUri() {
        return tls.uri(client());
    }

    @Override
    protected LockClient newClient() {
        return LockClient.open(storeUri());
    }

    @Override
    protected void expireBehindClientsBack(String lockName) {
        tls.server.expireNow(lockName);
    }

    @AfterEach
    void theServerRefusedTheUserNothing() {
        tls.assertNothingRefused();
    }

    @Test
    void theServerSpeaksTlsOnly() {
        tls.assertTlsOnly();
    }
}
