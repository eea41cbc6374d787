package io.locksmith.micrometer;

import io.locksmith.Lease;
import io.locksmith.LockClient;
import io.locksmith.LockOptions;
import io.locksmith.LockTimeoutException;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.UUID;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.*;

class LockMetricsTest {

    private final MeterRegistry registry = new SimpleMeterRegistry();
    private final LockMetrics metrics = LockMetrics.builder(registry).build();

    private static String store() {
        return "mem://metrics-" + UUID.randomUUID();
    }

    @Test
    void acquireOutcomesHoldTimesAndHeldGaugeAreRecordedByGroup() {
        String store = store();
        try (LockClient client = LockClient.builder().uri(store).listener(metrics).build();
             LockClient other = LockClient.open(store)) {
            Gauge held = metrics.monitorHeldLocks(client);
            try (Lease lease = client.lock("order:1001").acquire(Duration.ofSeconds(1));
                 Lease again = client.lock("order:1001").acquire(Duration.ofSeconds(1))) {
                assertEquals(1.0, held.value());
                assertEquals(lease.fencingToken(), again.fencingToken());
            }
            assertEquals(0.0, held.value());
            try (Lease busy = other.lock("order:1002").acquire(Duration.ofSeconds(1))) {
                assertThrows(LockTimeoutException.class, () -> client.lock("order:1002").acquire(Duration.ofMillis(50)));
            }

            Timer acquired = registry.get(LockMetrics.ACQUIRE)
                    .tags("store", "mem", "group", "order", "outcome", "acquired").timer();
            assertEquals(1, acquired.count());
            assertEquals(1, registry.get(LockMetrics.ACQUIRE).tags("outcome", "timeout").timer().count());
            assertEquals(1, registry.get(LockMetrics.REENTRIES).tags("group", "order").counter().count());
            assertEquals(1, registry.get(LockMetrics.HOLD).tags("outcome", "released").timer().count());
            assertEquals("mem", held.getId().getTag("store"));
        }
    }

    @Test
    void lossIsCountedWithItsReason() {
        try (LockClient client = LockClient.builder().uri(store()).listener(metrics).build()) {
            Lease lease = client.lock("report:daily", LockOptions.builder().leaseTime(Duration.ofMillis(100)).fixedLease().build())
                    .acquire(Duration.ZERO);
            await().atMost(Duration.ofSeconds(2)).until(() -> !lease.isHeld());
            await().atMost(Duration.ofSeconds(2)).until(() -> registry.find(LockMetrics.LOST).counter() != null);
            assertEquals(1, registry.get(LockMetrics.LOST).tags("group", "report", "reason", "expired").counter().count());
            assertEquals(1, registry.get(LockMetrics.HOLD).tags("outcome", "lost").timer().count());
            lease.close();
        }
    }

    @Test
    void renewalsAreCounted() {
        try (LockClient client = LockClient.builder().uri(store()).listener(metrics).build();
             Lease lease = client.lock("job:renewed", LockOptions.builder().leaseTime(Duration.ofMillis(150)).build())
                     .acquire(Duration.ZERO)) {
            await().atMost(Duration.ofSeconds(3)).until(() -> registry.find(LockMetrics.RENEWALS).tags("outcome", "renewed")
                    .counter() != null);
            assertTrue(lease.isHeld());
        }
    }

    @Test
    void groupsAreCappedSoCardinalityStaysBounded() {
        NameGroups groups = NameGroups.byPrefix(":", 2);
        assertEquals("order", groups.groupOf("order:1"));
        assertEquals("stock", groups.groupOf("stock:9"));
        assertEquals(NameGroups.OTHER, groups.groupOf("payment:3"));
        assertEquals("order", groups.groupOf("order:2"));
        assertEquals("nightly-report", NameGroups.byPrefix().groupOf("nightly-report"));
        assertEquals(NameGroups.OTHER, NameGroups.of(name -> null, 5).groupOf("x"));
        assertThrows(IllegalArgumentException.class, () -> NameGroups.byPrefix(":", 0));
        assertThrows(IllegalArgumentException.class, () -> NameGroups.byPrefix("", 3));
    }
}
