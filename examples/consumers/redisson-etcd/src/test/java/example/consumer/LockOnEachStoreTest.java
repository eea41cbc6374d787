package example.consumer;

import io.locksmith.Lease;
import io.locksmith.LockClient;
import io.locksmith.tck.server.ServerProcess;
import io.locksmith.tck.server.StoreServers;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.time.Duration;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A lock taken through each backend this project depends on, against real servers, in one JVM. */
class LockOnEachStoreTest {

    private static ServerProcess redis;
    private static ServerProcess etcd;

    @BeforeAll
    static void startServers() {
        redis = StoreServers.redis();
        etcd = StoreServers.etcd();
    }

    @AfterAll
    static void stopServers() {
        if (redis != null) {
            redis.close();
        }
        if (etcd != null) {
            etcd.close();
        }
    }

    static Stream<Arguments> stores() {
        return Stream.of(
                Arguments.of("redis://127.0.0.1:" + redis.port() + "?client=redisson", "redisson"),
                Arguments.of("etcd://127.0.0.1:" + etcd.port(), "etcd"));
    }

    @ParameterizedTest(name = "{1}")
    @MethodSource("stores")
    void lockIsExclusiveAndReleased(String uri, String expectedInDescription) {
        String orderId = UUID.randomUUID().toString();
        try (LockClient first = LockClient.open(uri); LockClient second = LockClient.open(uri)) {
            assertTrue(first.describe().contains(expectedInDescription),
                    "the client talks to " + first.describe() + ", expected " + expectedInDescription);
            AtomicLong seenToken = new AtomicLong(-1);

            long token = new OrderFulfilment(first).fulfil(orderId, Duration.ofSeconds(10), fencingToken -> {
                seenToken.set(fencingToken);
                // While the first client holds the order's lock, nobody else gets it.
                Optional<Lease> competitor = second.lock("order:" + orderId).tryAcquire();
                competitor.ifPresent(Lease::close);
                assertTrue(competitor.isEmpty(), "a second client acquired a lock that was held on " + uri);
            });
            assertEquals(seenToken.get(), token);

            // Released on leaving fulfil: the other client gets it now, with a greater fencing token.
            long next = new OrderFulfilment(second).fulfil(orderId, Duration.ofSeconds(10), fencingToken -> { });
            assertTrue(next > token, "fencing token " + next + " after " + token + " on " + uri);
        }
    }
}
