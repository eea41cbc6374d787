package io.locksmith;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.*;

class MemSmokeTest {

    private static String unique() {
        return "smoke-" + UUID.randomUUID();
    }

    @Test
    void twoClientsExcludeEachOtherAndHandOver() throws Exception {
        String store = "mem://" + unique();
        try (LockClient a = LockClient.open(store); LockClient b = LockClient.open(store)) {
            String name = unique();
            Lease first = a.lock(name).acquire(Duration.ofSeconds(1));
            assertTrue(b.lock(name).tryAcquire().isEmpty());
            CompletableFuture<Lease> waiting = CompletableFuture.supplyAsync(() -> b.lock(name).acquire(Duration.ofSeconds(5)));
            first.close();
            Lease second = waiting.get(5, TimeUnit.SECONDS);
            assertTrue(second.fencingToken() > first.fencingToken());
            second.close();
        }
    }

    @Test
    void fixedLeaseIsReportedLost() {
        try (LockClient client = LockClient.open("mem://" + unique())) {
            AtomicReference<LeaseLostEvent> lost = new AtomicReference<>();
            Lease lease = client.lock(unique(), LockOptions.builder().leaseTime(Duration.ofMillis(500)).fixedLease().build())
                    .acquire(Duration.ZERO);
            lease.onLost(lost::set);
            await().atMost(Duration.ofSeconds(5)).until(() -> lost.get() != null);
            assertEquals(LossReason.EXPIRED, lost.get().reason());
            assertFalse(lease.isHeld());
            assertThrows(LockLostException.class, lease::ensureHeld);
            lease.close();
        }
    }

    @Test
    void renewalKeepsTheLeasePastItsTtl() {
        try (LockClient client = LockClient.open("mem://" + unique())) {
            Lease lease = client.lock(unique(), LockOptions.builder().leaseTime(Duration.ofSeconds(1)).build()).acquire(Duration.ZERO);
            // Three leases long: renewed every third of a lease, and a renewal delayed by a loaded machine still
            // lands within its lease.
            long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(3000);
            await().atMost(Duration.ofSeconds(6)).until(() -> System.nanoTime() > until);
            assertTrue(lease.isHeld());
            lease.close();
            assertFalse(lease.isHeld());
        }
    }

    @Test
    void reentryCountsLocally() {
        try (LockClient client = LockClient.open("mem://" + unique())) {
            DistributedLock lock = client.lock(unique());
            try (Lease outer = lock.acquire(Duration.ZERO)) {
                try (Lease inner = lock.acquire(Duration.ZERO)) {
                    assertEquals(outer.fencingToken(), inner.fencingToken());
                    assertEquals(2, outer.holdCount());
                }
                assertTrue(outer.isHeld());
                assertEquals(1, client.heldCount());
            }
            assertEquals(0, client.heldCount());
        }
    }
}
