package io.locksmith;

import io.locksmith.mem.MemStore;
import io.locksmith.spi.Grant;
import io.locksmith.spi.LockProvider;
import io.locksmith.spi.LockProviderFactory;
import io.locksmith.spi.LockUri;
import io.locksmith.spi.ProviderClientBuilder;
import io.locksmith.spi.ProviderContext;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * An acquire of several permits hands its caller a lease only if every permit is still held at that moment. Between
 * collecting the last permit and handing out the lease it gives its gate back, which takes a store call (up to the
 * call's bound when the store is slow to answer); a permit lost meanwhile must not reach the caller as a lease that is
 * already lost, whose other permits are released at once: the next acquirer could then hold every permit while the
 * caller, just granted, is inside. Found by a safety run through a semaphore on a ZooKeeper ensemble, where a reply
 * lost after its request took effect held a gate release for 2 s: one holding entered while another was inside
 * (fenced).
 */
class PermitLostBeforeGrantTest {

    /** mem:// whose release of a gate waits for the test's latch, as a store that is slow to answer would. */
    private static final class SlowGateStore implements LockProviderFactory {
        final String store = "slow-gate-" + UUID.randomUUID();
        final CountDownLatch gateReleaseStarted = new CountDownLatch(1);
        final CountDownLatch gateReleaseMayAnswer = new CountDownLatch(1);
        volatile boolean holdGateReleases = true;

        @Override
        public Set<String> schemes() {
            return Set.of("slowgate");
        }

        @Override
        public LockProvider create(LockUri uri, ProviderContext context) {
            return new StubStores.OverMem(store, context, "slowgate://" + store) {
                @Override
                public boolean release(Grant grant) {
                    if (holdGateReleases && grant.name().endsWith("#permit/gate")) {
                        gateReleaseStarted.countDown();
                        try {
                            gateReleaseMayAnswer.await(20, TimeUnit.SECONDS);
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                        }
                    }
                    return super.release(grant);
                }
            };
        }

        LockClient client(LockListener listener) {
            return ProviderClientBuilder.create().uri("slowgate://").factory(this).listener(listener).build();
        }
    }

    @Test
    void aPermitLostWhileTheGateIsGivenBackSendsTheAcquireBackToTheQueue() throws Exception {
        SlowGateStore store = new SlowGateStore();
        String name = "lost-before-grant-" + UUID.randomUUID();
        String firstPermit = name + "#permit:0";
        CountDownLatch permitLost = new CountDownLatch(1);
        LockOptions shortLease = LockOptions.builder().leaseTime(Duration.ofMillis(600)).renewing().build();
        try (LockClient client = store.client(event -> {
            if (event.type() == LockEvent.Type.LOST && event.lockName().equals(firstPermit)) {
                permitLost.countDown();
            }
        })) {
            CompletableFuture<PermitLease> acquired = client.semaphore(name, 2, shortLease)
                    .acquireAsync(2, Duration.ofSeconds(20));
            // Both permits are collected; the gate's release is under way and does not answer yet.
            assertTrue(store.gateReleaseStarted.await(10, TimeUnit.SECONDS), "the gate was never released");
            long firstGateToken = client.inspect(name + "#permit/gate").orElseThrow().fencingToken();
            MemStore.named(store.store).expire(firstPermit);
            assertTrue(permitLost.await(10, TimeUnit.SECONDS), "the collector was never told its permit was lost");
            assertFalse(acquired.isDone(), "the acquire completed before its gate was given back");
            store.holdGateReleases = false;
            store.gateReleaseMayAnswer.countDown();
            try (PermitLease lease = acquired.get(10, TimeUnit.SECONDS)) {
                assertTrue(lease.isHeld(), "the acquire handed out a lease one of whose permits was lost before the"
                        + " grant: " + lease);
                assertEquals(2, lease.permits());
                assertTrue(lease.fencingToken() > firstGateToken, "the lease kept the gate token " + firstGateToken
                        + " of the collection that lost a permit, got " + lease.fencingToken());
            }
        }
    }
}
