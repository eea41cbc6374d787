package io.locksmith.redis;

import io.locksmith.HolderIdentity;
import io.locksmith.spi.AcquireRequest;
import io.locksmith.spi.LockProvider;
import io.locksmith.spi.LockUri;
import io.locksmith.spi.Owner;
import io.locksmith.spi.ProviderContext;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * An acquire that timed out may still reach the server after the client cleaned up (a paused server, a
 * full socket buffer, a second connection overtaking the first). The clean-up must win in either order.
 */
class AbandonedAcquireTest {

    static final List<RedisServer> servers = new ArrayList<>();

    @BeforeAll
    static void start() {
        for (int i = 0; i < 3; i++) {
            servers.add(RedisServer.start());
        }
    }

    @AfterAll
    static void stop() {
        servers.forEach(RedisServer::close);
        servers.clear();
    }

    private static LockProvider provider(String uri) {
        return new RedisLockProviderFactory().create(LockUri.parse(uri), new ProviderContext("abandoned-test", (g, r, c) -> { }));
    }

    private static Owner owner(String id) {
        return new Owner(id, new HolderIdentity("abandoned-test", "p", "t", 1, null));
    }

    private static void cleanUpFirstThenLateAcquireIsRefused(LockProvider provider, String name) {
        Owner abandoned = owner("abandoned-test:1");
        provider.releaseAmbiguous(name, abandoned);
        assertTrue(provider.tryAcquire(new AcquireRequest(name, abandoned, Duration.ofSeconds(5), false)).isEmpty(),
                "an acquire that arrived after its clean-up took the lock");
        assertTrue(provider.inspect(name).isEmpty());
        var other = provider.tryAcquire(new AcquireRequest(name, owner("abandoned-test:2"), Duration.ofSeconds(5), false));
        assertTrue(other.isPresent(), "the marker must not block other owners");
        provider.release(other.get());
    }

    private static void acquireFirstThenCleanUpRemovesIt(LockProvider provider, String name) {
        Owner abandoned = owner("abandoned-test:3");
        assertTrue(provider.tryAcquire(new AcquireRequest(name, abandoned, Duration.ofSeconds(5), false)).isPresent());
        provider.releaseAmbiguous(name, abandoned);
        assertTrue(provider.inspect(name).isEmpty(), "the clean-up left the lock behind");
    }

    @Test
    void singleNode(TestInfo info) {
        String name = RedisLockContract.unique(info);
        for (String client : List.of("jedis", "redisson")) {
            try (LockProvider provider = provider("redis://" + servers.get(0).address() + "?client=" + client)) {
                cleanUpFirstThenLateAcquireIsRefused(provider, name + client);
                acquireFirstThenCleanUpRemovesIt(provider, name + client);
            }
        }
    }

    @Test
    void redLock(TestInfo info) {
        String name = RedisLockContract.unique(info);
        String uri = "redlock://" + servers.stream().map(RedisServer::address).collect(Collectors.joining(","));
        try (LockProvider provider = provider(uri)) {
            cleanUpFirstThenLateAcquireIsRefused(provider, name);
            acquireFirstThenCleanUpRemovesIt(provider, name);
        }
    }
}
