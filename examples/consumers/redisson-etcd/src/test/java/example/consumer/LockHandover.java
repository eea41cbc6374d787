package example.consumer;

import io.locksmith.Lease;
import io.locksmith.LockClient;

import java.time.Duration;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** What each store test checks: the lock excludes a second client while held, and passes on when released. */
final class LockHandover {

    private LockHandover() {
    }

    static void check(String uri, String expectedInDescription) {
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
