package io.locksmith.postgres;

import io.locksmith.Lease;
import io.locksmith.LockClient;
import io.locksmith.LockConfigurationException;
import io.locksmith.LockInfo;
import io.locksmith.LockOptions;
import io.locksmith.LockStoreException;
import io.locksmith.tck.server.PostgresStandbyPair;
import io.locksmith.tck.server.StoreServers;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicReference;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A primary with a streaming standby (docs/POSTGRES.md, "With a standby"): an asynchronous standby is refused at
 * start unless {@code allowAsyncStandby=true} says its losses are accepted; with a synchronous one
 * ({@code remote_apply}) a grant survives the primary's death and the standby's promotion, the clients find the
 * promoted server through the host list, and fencing tokens keep increasing across the promotion.
 */
class PostgresStandbyTest {

    /** Generous for a loaded 2-core machine: a failover, a reconnect and the driver's host re-check. */
    private static final Duration FAILOVER_BOUND = Duration.ofSeconds(60);

    private static String uri(PostgresStandbyPair pair, String parameters) {
        return "postgres://" + StoreServers.POSTGRES_USER + "@" + pair.hosts() + "/postgres?timeout=2s"
                + (parameters.isEmpty() ? "" : "&" + parameters);
    }

    private static String name(String what) {
        return what + "-" + UUID.randomUUID();
    }

    @Test
    void anAsynchronousStandbyIsRefusedAtStartUnlessAllowed() {
        try (PostgresStandbyPair pair = PostgresStandbyPair.asynchronous()) {
            LockConfigurationException refused = assertThrows(LockConfigurationException.class,
                    () -> LockClient.open(uri(pair, "")).close());
            assertTrue(refused.getMessage().contains("streams to 1 standby(s) asynchronously"), refused.getMessage());
            assertTrue(refused.getMessage().contains("allowAsyncStandby=true"), refused.getMessage());
            assertTrue(refused.getMessage().contains("synchronous_standby_names"), refused.getMessage());

            try (LockClient client = LockClient.open(uri(pair, "allowAsyncStandby=true"))) {
                String lock = name("async-allowed");
                try (Lease lease = client.lock(lock).acquire(Duration.ofSeconds(10))) {
                    assertTrue(lease.isHeld());
                }
            }
        }
    }

    @Test
    void aSynchronousCommitThatDoesNotWaitForTheStandbyIsRefused() {
        try (PostgresStandbyPair pair = PostgresStandbyPair.synchronous()) {
            PostgresStandbyPair.query(pair.primaryPort(), "ALTER SYSTEM SET synchronous_commit = 'local'");
            PostgresStandbyPair.query(pair.primaryPort(), "SELECT pg_reload_conf()");
            LockConfigurationException refused = assertThrows(LockConfigurationException.class,
                    () -> LockClient.open(uri(pair, "")).close());
            assertTrue(refused.getMessage().contains("synchronous_commit is 'local'"), refused.getMessage());
        }
    }

    @Test
    void aGrantSurvivesThePromotionOfASynchronousStandbyAndTokensKeepIncreasing() {
        try (PostgresStandbyPair pair = PostgresStandbyPair.synchronous();
             LockClient holder = LockClient.open(uri(pair, ""));
             LockClient other = LockClient.open(uri(pair, ""))) {
            String held = name("held");
            String churn = name("churn");
            LockOptions options = LockOptions.builder().leaseTime(Duration.ofSeconds(30)).build();
            Lease lease = holder.lock(held, options).acquire(Duration.ofSeconds(10));
            List<Long> before = new ArrayList<>(List.of(lease.fencingToken()));
            for (int i = 0; i < 5; i++) {
                try (Lease churned = other.lock(churn).acquire(Duration.ofSeconds(10))) {
                    before.add(churned.fencingToken());
                }
            }
            long highestBefore = before.stream().mapToLong(Long::longValue).max().orElseThrow();

            pair.failOver();
            long promoted = System.nanoTime();

            // The new primary is found through the host list once the driver re-checks the hosts; store errors
            // until then are expected, a grant of the held lock never is.
            AtomicReference<Optional<LockInfo>> seen = new AtomicReference<>();
            await().atMost(FAILOVER_BOUND).pollInterval(Duration.ofMillis(200)).ignoreException(LockStoreException.class)
                    .until(() -> {
                        seen.set(other.inspect(held));
                        return true;
                    });
            // Printed, not asserted (a loaded machine): how long the clients failed after the promotion returned.
            System.out.printf("the promoted server answered %d ms after the promotion%n",
                    Duration.ofNanos(System.nanoTime() - promoted).toMillis());
            assertTrue(seen.get().isPresent(), "the promoted standby does not have the lock '" + held
                    + "' whose grant the primary confirmed before it was killed");
            assertEquals(lease.fencingToken(), seen.get().get().fencingToken());
            assertEquals(Optional.empty(), other.lock(held).tryAcquire(), "the lock was granted a second time");

            List<Long> after = new ArrayList<>();
            for (int i = 0; i < 5; i++) {
                try (Lease churned = other.lock(churn).acquire(Duration.ofSeconds(10))) {
                    after.add(churned.fencingToken());
                }
            }
            for (int i = 0; i < after.size(); i++) {
                long token = after.get(i);
                assertTrue(token > highestBefore, "token " + token + " after the promotion is not above " + highestBefore
                        + ", the highest before it: " + before + " then " + after);
                assertTrue(i == 0 || token > after.get(i - 1), "tokens after the promotion do not increase: " + after);
            }

            // The holder's own client reaches the promoted server too: its lease renews there and releases.
            await().atMost(FAILOVER_BOUND).pollInterval(Duration.ofMillis(200)).ignoreException(LockStoreException.class)
                    .until(() -> holder.inspect(held).isPresent());
            assertTrue(lease.isHeld(), "the holder lost a lock the promoted standby still has");
            lease.close();
            try (Lease next = other.lock(held).acquire(Duration.ofSeconds(10))) {
                assertTrue(next.fencingToken() > after.get(after.size() - 1),
                        "the next holder's token " + next.fencingToken() + " is not above " + after);
            }
        }
    }
}
