package io.locksmith.examples.memcached;

import io.locksmith.Lease;
import io.locksmith.LeaseLostEvent;
import io.locksmith.LockClient;
import io.locksmith.LockOptions;
import io.locksmith.tck.server.ServerProcess;
import io.locksmith.tck.server.StoreServers;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicReference;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * memcached forgets everything when it restarts. The provider's answer: a holder learns of the loss at its next
 * renewal, and fencing tokens granted after the restart are greater than every token granted before it, because the
 * counter starts again from the clock (MemcachedLockProvider). What the kit's restart rule checks on every deployment
 * that has a restart hook; here on memcached until the fault kit has that hook.
 */
@Timeout(60)
class MemcachedRestartTest {

    private ServerProcess server;
    private LockClient holder;
    private LockClient other;

    @BeforeEach
    void start() {
        server = StoreServers.memcached();
        holder = LockClient.open(uri());
        other = LockClient.open(uri());
    }

    @AfterEach
    void stop() {
        if (holder != null) {
            holder.close();
        }
        if (other != null) {
            other.close();
        }
        server.close();
    }

    private String uri() {
        return "memcached://127.0.0.1:" + server.port() + "?timeout=500ms";
    }

    @Test
    void aHolderIsToldOfTheLossAndTokensAfterTheRestartAreGreater() {
        String name = "restart-" + UUID.randomUUID();
        long highest = 0;
        for (int i = 0; i < 20; i++) {
            try (Lease lease = other.lock(name + "-" + (i % 3)).acquire(Duration.ofSeconds(5))) {
                highest = Math.max(highest, lease.fencingToken());
            }
        }
        Lease held = holder.lock(name, LockOptions.builder().leaseTime(Duration.ofMillis(900))
                .maxHold(Duration.ofMinutes(5)).build()).acquire(Duration.ofSeconds(5));
        highest = Math.max(highest, held.fencingToken());
        AtomicReference<LeaseLostEvent> lost = new AtomicReference<>();
        held.onLost(lost::set);

        server.restart(); // SIGKILL and a new process on the same port: every item is gone

        await("the holder to be told that the restarted server lost its lock").atMost(Duration.ofSeconds(10))
                .until(() -> lost.get() != null);
        assertNotNull(lost.get());
        for (String again : new String[]{name, name + "-0", "restart-" + UUID.randomUUID()}) {
            try (Lease lease = other.lock(again).acquire(Duration.ofSeconds(10))) {
                assertTrue(lease.fencingToken() > highest, "lock '" + again + "' got token " + lease.fencingToken()
                        + " after the restart, not above " + highest + ", the highest before it");
            }
        }
        held.close();
    }
}
