package io.locksmith.mem;

import io.locksmith.Lease;
import io.locksmith.LockClient;
import io.locksmith.LockOptions;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Regression (issue 13, item 12): mem:// told only the waiters that had subscribed before the grant when a lock
 * expired; a waiter that came later found the expiry only at its next poll.
 */
class MemExpiryNotificationTest {

    @Test
    void aWaiterThatSubscribedAfterTheGrantIsToldWhenTheLockExpires() {
        String store = "expiry-" + UUID.randomUUID();
        String name = "lock-" + UUID.randomUUID();
        try (LockClient holder = LockClient.open("mem://" + store);
             // Polls only every 5 to 10 s: a handoff within a second can only come from the notification.
             LockClient waiter = LockClient.builder().uri("mem://" + store).maxPollInterval(Duration.ofSeconds(10)).build()) {
            long grantedAt = System.nanoTime();
            Lease expiring = holder.lock(name, LockOptions.builder().leaseTime(Duration.ofMillis(300)).fixedLease().build())
                    .acquire(Duration.ofSeconds(1));
            try (Lease next = waiter.lock(name).acquire(Duration.ofSeconds(5))) {
                long after = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - grantedAt);
                assertTrue(after < 1_300, "the waiter got the expired lock " + after + " ms after a grant of 300 ms");
                assertTrue(next.isHeld());
            }
            expiring.close();
        }
    }
}
