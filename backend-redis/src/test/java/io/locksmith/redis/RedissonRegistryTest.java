package io.locksmith.redis;

import io.locksmith.spi.LockProvider;
import io.locksmith.spi.LockUri;
import io.locksmith.spi.ProviderContext;
import io.locksmith.tck.RegistryTck;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** Registry records (used by the migration phase guard) on a real redis-server through Redisson. */
class RedissonRegistryTest extends RegistryTck {

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

    @Override
    protected LockProvider newProvider() {
        return new RedisLockProviderFactory().create(LockUri.parse("redis://" + server.address() + "?client=redisson"),
                new ProviderContext("test", (grant, reason, cause) -> { }));
    }
}
