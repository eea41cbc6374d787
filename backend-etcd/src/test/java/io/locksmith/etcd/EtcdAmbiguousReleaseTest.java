package io.locksmith.etcd;

import io.locksmith.Lease;
import io.locksmith.LeaseLostEvent;
import io.locksmith.LockClient;
import io.locksmith.LockEvent;
import io.locksmith.tck.fault.TcpProxy;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A release whose answer is lost (a leader change at the moment of a heal, here dropped replies) is sent again;
 * the second attempt finds the key gone because the first one deleted it. That is a release, not a lock "found
 * gone from the store at release" (TAKEN_AWAY), as long as the holder's etcd lease was kept alive throughout.
 */
class EtcdAmbiguousReleaseTest {

    @Test
    void aReleaseWhoseAnswerWasLostIsAReleaseNotALoss() {
        String name = "ambiguous-release-" + System.nanoTime();
        try (EtcdCluster etcd = EtcdCluster.start(1);
             TcpProxy proxy = TcpProxy.start("127.0.0.1", etcd.members().get(0).port())) {
            List<LockEvent> events = new CopyOnWriteArrayList<>();
            try (LockClient client = LockClient.builder()
                    .uri("etcd://127.0.0.1:" + proxy.port() + "?timeout=3s&lease=30s")
                    .listener(events::add).build()) {
                Lease lease = client.lock(name).acquire(Duration.ofSeconds(5));
                AtomicReference<LeaseLostEvent> lost = new AtomicReference<>();
                lease.onLost(lost::set);

                // Every answer is lost for longer than one attempt (a quarter of the 3 s time-out): the delete
                // reaches etcd and takes effect, the holder hears nothing and sends it again once answers flow.
                ScheduledExecutorService faults = Executors.newSingleThreadScheduledExecutor();
                try {
                    proxy.dropNextReplies(Integer.MAX_VALUE);
                    faults.schedule(proxy::heal, 1500, TimeUnit.MILLISECONDS);
                    lease.close();
                } finally {
                    faults.shutdownNow();
                }

                assertTrue(proxy.droppedReplies() > 0, "no answer was dropped");
                assertNull(lost.get(), "a release whose first answer was lost was reported as a loss");
                assertTrue(events.stream().anyMatch(e -> e.type() == LockEvent.Type.RELEASED && e.lockName().equals(name)),
                        "no RELEASED event: " + events);
                Optional<Lease> next = client.lock(name).tryAcquire();
                assertTrue(next.isPresent(), "the released lock is still taken");
                next.get().close();
            }
        }
    }
}
