package io.locksmith.etcd;

import io.etcd.jetcd.Client;
import io.locksmith.Lease;
import io.locksmith.LockClient;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The client's etcd auth token stops being valid while it runs, in both ways etcd ends a simple token: unused for
 * longer than {@code --auth-token-ttl} (1 s here; etcd's default is 300 s), and a restart of the member (simple
 * tokens live in its memory). A client that holds or waits for a lock keeps its token in use (a keep-alive at
 * least every second), so the first case hits a client that has been idle; the second hits every client. jetcd drops its token when etcd refuses it, but fails the request that met the refusal
 * (jetcd issues #163, #177, #1336); the backend sends that request again, once, with a fresh login.
 */
class EtcdAuthTokenTest {

    private static SecureEtcd etcd;
    private static Client root;

    @BeforeAll
    static void start() {
        etcd = SecureEtcd.start(null, false, 1);
        root = etcd.root();
    }

    @AfterAll
    static void stop() {
        if (root != null) {
            root.close();
        }
        if (etcd != null) {
            etcd.close();
        }
    }

    private static String unique(TestInfo test) {
        return test.getTestMethod().orElseThrow().getName() + "-" + System.nanoTime();
    }

    /**
     * Waits until etcd's own clock has run {@code seconds} (a lease of that TTL, granted and never kept alive, is
     * gone), while the client under test sends nothing: its token, unused for longer than the token TTL, is void.
     */
    private static void letEtcdClockRun(int seconds) {
        long lease = asRoot(() -> root.getLeaseClient().grant(seconds)).getID();
        await("etcd expires a lease of " + seconds + "s").atMost(Duration.ofSeconds(seconds + 20))
                .pollInterval(Duration.ofMillis(200))
                .until(() -> asRoot(() -> root.getLeaseClient().timeToLive(lease,
                        io.etcd.jetcd.options.LeaseOption.DEFAULT)).getTTL() < 0);
    }

    /**
     * A request of the harness's root client, sent a second time if etcd refused its token: jetcd's own client
     * fails that request too (it only drops the token), which is the behaviour the backend works around.
     */
    private static <T> T asRoot(java.util.concurrent.Callable<CompletableFuture<T>> request) {
        try {
            try {
                return request.call().get(10, TimeUnit.SECONDS);
            } catch (java.util.concurrent.ExecutionException e) {
                if (!String.valueOf(e.getCause().getMessage()).contains("auth")) {
                    throw e;
                }
                return request.call().get(10, TimeUnit.SECONDS);
            }
        } catch (Exception e) {
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
            throw new IllegalStateException("root's request to etcd failed", e);
        }
    }

    /** Until the restarted member answers root. */
    private static void awaitAnswers() {
        await("the restarted member answers").atMost(Duration.ofSeconds(20)).ignoreExceptions()
                .until(() -> asRoot(() -> root.getKVClient().get(SecureEtcd.bytes("health"))) != null);
    }

    @Test
    void clientIdleForLongerThanTheTokenTtlAnswersItsNextCall(TestInfo test) {
        String name = unique(test);
        try (LockClient client = LockClient.open(etcd.lockUri("lease=2s"))) {
            letEtcdClockRun(3); // token TTL 1s, checked by etcd once a second: void after at most 2s unused
            assertTrue(client.inspect(name).isEmpty()); // one request, no retry by the shared client
            letEtcdClockRun(3);
            try (Lease lease = client.lock(name).tryAcquire().orElseThrow()) { // no wait: nothing to retry within
                assertTrue(lease.isHeld());
            }
        }
    }

    @Test
    void holderAndWaiterCarryOnAfterARestartThatVoidedTheirTokens(TestInfo test) throws Exception {
        String name = unique(test);
        // A lease long enough to outlast the restart itself (the client counts it lost if no keep-alive is answered
        // within its TTL). The waiter does not wait across the restart: during it, the shared client fails calls fast
        // (SPEC R9.14), which is not what this test is about.
        try (LockClient holder = LockClient.open(etcd.lockUri("lease=4s"));
             LockClient waiter = LockClient.open(etcd.lockUri("lease=4s"))) {
            Lease held = holder.lock(name).acquire(Duration.ofSeconds(5));
            etcd.server().restart(); // every token is gone with the member's memory; etcd keeps the leases
            awaitAnswers();
            letEtcdClockRun(5); // longer than the 4s lease: only renewals after the restart keep it
            assertTrue(held.isHeld(), "renewed after the restart");
            // The waiter's first request since the restart meets the refusal.
            CompletableFuture<Lease> waiting = CompletableFuture.supplyAsync(
                    () -> waiter.lock(name).acquire(Duration.ofSeconds(30)));
            await("the waiter queues").atMost(Duration.ofSeconds(10))
                    .until(() -> holder.inspect(name).map(info -> info.waiters().size()).orElse(0) == 1);
            held.close();
            try (Lease next = waiting.get(20, TimeUnit.SECONDS)) { // woken by its watch, it takes the lock
                assertTrue(next.isHeld());
            }
        }
    }

    @Test
    void restartedMemberForgetsTokensAndTheClientLogsInAgain(TestInfo test) {
        String name = unique(test);
        try (LockClient client = LockClient.open(etcd.lockUri("lease=2s"))) {
            assertTrue(client.inspect(name).isEmpty());
            etcd.server().restart();
            awaitAnswers();
            assertTrue(client.inspect(name).isEmpty()); // its token died with the member's memory
            try (Lease lease = client.lock(name).tryAcquire().orElseThrow()) {
                assertTrue(lease.isHeld());
            }
        }
    }
}
