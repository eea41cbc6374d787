package io.locksmith;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * After a loss, an acquire of the same lock on the thread whose lost lease is still open would have re-entered
 * that lease: it fails with a {@link LockLostException} that says to close the lost lease first (a fresh lock
 * inside the lost one would hide the loss from the code around it). Closing the lost lease lets it acquire; other
 * threads are never blocked by it.
 */
class LostLeaseReacquireTest {

    private static final LockOptions SHORT_FIXED = LockOptions.builder().leaseTime(Duration.ofMillis(500))
            .fixedLease().build();

    @Test
    void aLostLeaseStillOpenMakesTheSameThreadsAcquireSayCloseItFirst() {
        try (LockClient client = LockClient.open("mem://" + UUID.randomUUID())) {
            DistributedLock lock = client.lock("order:" + UUID.randomUUID(), SHORT_FIXED);
            Lease lost = lock.acquire(Duration.ofSeconds(1));
            await().atMost(Duration.ofSeconds(5)).until(() -> !lost.isHeld());

            LockLostException refused = assertThrows(LockLostException.class, () -> lock.tryAcquire(Duration.ofSeconds(1)));
            assertTrue(refused.getMessage().contains("close the lost lease first"), refused.getMessage());
            assertTrue(refused.getMessage().contains("fencing token " + lost.fencingToken()), refused.getMessage());
            assertThrows(LockLostException.class, lock::acquire, "a blocking acquire says the same, without waiting");

            // Another thread takes the lock meanwhile: the open lost lease does not hold it.
            Optional<Lease> other = CompletableFuture.supplyAsync(() -> lock.tryAcquire(Duration.ofSeconds(1))).join();
            assertTrue(other.isPresent(), "another thread could not take the lock while a lost lease was open");
            other.get().close();

            lost.close();
            try (Lease fresh = lock.acquire(Duration.ofSeconds(1))) {
                assertTrue(fresh.isHeld());
                assertTrue(fresh.fencingToken() > lost.fencingToken(), "a fresh holding has a fresh token");
            }
            assertFalse(lost.isHeld());
        }
    }
}
