package io.locksmith.redis;

import io.locksmith.HolderIdentity;
import io.locksmith.LockInfo;
import io.locksmith.spi.AcquireRequest;
import io.locksmith.spi.Grant;
import io.locksmith.spi.LockProvider;
import io.locksmith.spi.LockUri;
import io.locksmith.spi.Owner;
import io.locksmith.spi.ProviderContext;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import redis.clients.jedis.Jedis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Direct handoff on one primary, at the SPI against a real server: a waiter that will wait keeps a place in the
 * name's queue, and a release (or a clean-up that frees the lock) hands the lock to the first live waiter in the
 * same script, so nobody who arrives later can take it in between; the waiter takes it from the release's message, or
 * confirms it with its next attempt. What a waiter leaves behind when it gives up or is abandoned must not hold the
 * lock, and a waiter whose place lapsed is passed over. The three transports run the same scripts; each case runs on each.
 */
class DirectHandoffTest {

    private static final Duration TTL = Duration.ofSeconds(30);
    /** The waiter's TTL where a handoff is taken from its message: 1 % of it is 6 s, the window for that. */
    private static final Duration HANDOFF_TTL = Duration.ofMinutes(10);
    private static final AtomicInteger OWNERS = new AtomicInteger();

    static RedisServer server;
    static final List<RedisServer> redLockServers = new ArrayList<>();

    @BeforeAll
    static void start() {
        server = RedisServer.start();
        for (int i = 0; i < 3; i++) {
            redLockServers.add(RedisServer.start());
        }
    }

    @AfterAll
    static void stop() {
        server.close();
        redLockServers.forEach(RedisServer::close);
        redLockServers.clear();
    }

    private static LockProvider provider(String uri) {
        return new RedisLockProviderFactory().create(LockUri.parse(uri), new ProviderContext("handoff-test", (g, r, c) -> { }));
    }

    /** The providers a test opened on the shared server, closed after it. */
    private final List<LockProvider> opened = new ArrayList<>();

    @AfterEach
    void closeProviders() {
        opened.forEach(LockProvider::close);
    }

    private LockProvider onSharedServer(String client) {
        LockProvider provider = provider("redis://" + server.address() + "?client=" + client);
        opened.add(provider);
        return provider;
    }

    private static Owner owner(String label) {
        return new Owner("handoff-test:" + label + ":" + OWNERS.incrementAndGet(),
                new HolderIdentity("handoff-test", label, "t", 1, null));
    }

    private static Optional<Grant> attempt(LockProvider provider, String name, Owner owner, boolean willWait) {
        return attempt(provider, name, owner, willWait, TTL);
    }

    private static Optional<Grant> attempt(LockProvider provider, String name, Owner owner, boolean willWait,
                                           Duration ttl) {
        return provider.tryAcquire(new AcquireRequest(name, owner, ttl, willWait));
    }

    private static Grant take(LockProvider provider, String name, Owner owner) {
        return attempt(provider, name, owner, false).orElseThrow(() -> new AssertionError(owner.id() + " could not"
                + " take lock '" + name + "'"));
    }

    private static String holderOf(LockProvider provider, String name) {
        return provider.inspect(name).map(LockInfo::holder).map(HolderIdentity::process).orElse(null);
    }

    @ParameterizedTest
    @ValueSource(strings = {"jedis", "redisson", "lettuce"})
    void aReleaseHandsTheLockToTheQueuedWaiterAndNobodyElse(String client, TestInfo info) {
        String name = RedisLockContract.unique(info) + client;
        LockProvider a = onSharedServer(client);
        LockProvider b = onSharedServer(client);
        LockProvider c = onSharedServer(client);
        Grant held = take(a, name, owner("a"));
        Owner waiter = owner("b");
        assertTrue(attempt(b, name, waiter, true).isEmpty());
        a.release(held);
        assertEquals("b", holderOf(a, name), "the release did not hand the lock to the queued waiter");
        Duration handedFor = a.inspect(name).orElseThrow().remaining();
        assertTrue(handedFor.compareTo(TTL.minusSeconds(5)) > 0 && handedFor.compareTo(TTL) <= 0,
                "the handed lock is not held for the waiter's TTL of " + TTL + ": " + handedFor + " left");
        assertTrue(attempt(c, name, owner("c"), false).isEmpty(), "a newcomer took a lock handed to a waiter");
        Grant handed = attempt(b, name, waiter, true).orElseThrow(() -> new AssertionError("the waiter could"
                + " not take the lock handed to it"));
        assertTrue(handed.fencingToken() > held.fencingToken(), "the handed lock's token is not greater");
        assertEquals(a.inspect(name).orElseThrow().fencingToken(), handed.fencingToken());
        assertTrue(handed.validity().compareTo(TTL) <= 0, "validity " + handed.validity() + " over the TTL");
        assertTrue(b.release(handed));
        assertTrue(a.inspect(name).isEmpty(), "nobody waits: the release must free the lock");
        assertQueueGone(name);
    }

    @ParameterizedTest
    @ValueSource(strings = {"jedis", "redisson", "lettuce"})
    void waitersAreServedInArrivalOrder(String client, TestInfo info) {
        String name = RedisLockContract.unique(info) + client;
        LockProvider store = onSharedServer(client);
        Grant held = take(store, name, owner("holder"));
        List<Owner> waiters = new ArrayList<>();
        for (String label : List.of("w1", "w2", "w3")) {
            Owner waiter = owner(label);
            waiters.add(waiter);
            assertTrue(attempt(store, name, waiter, true).isEmpty());
        }
        // A waiter that tries again keeps the place of its first attempt.
        assertTrue(attempt(store, name, waiters.get(0), true).isEmpty());
        List<String> served = new ArrayList<>();
        Grant current = held;
        for (int i = 0; i < waiters.size(); i++) {
            store.release(current);
            served.add(holderOf(store, name));
            current = attempt(store, name, waiters.get(i), true).orElseThrow(() -> new AssertionError(
                    "the waiter the lock was handed to could not confirm it"));
        }
        store.release(current);
        assertEquals(List.of("w1", "w2", "w3"), served);
        assertTrue(store.inspect(name).isEmpty());
    }

    @ParameterizedTest
    @ValueSource(strings = {"jedis", "redisson", "lettuce"})
    void aCancelledWaiterIsPassedOverAndAHandedLockItCancelsGoesOn(String client, TestInfo info) {
        String name = RedisLockContract.unique(info) + client;
        LockProvider store = onSharedServer(client);
        Grant held = take(store, name, owner("holder"));
        Owner gaveUp = owner("gave-up");
        Owner handedThenGaveUp = owner("handed-then-gave-up");
        Owner last = owner("last");
        assertTrue(attempt(store, name, gaveUp, true).isEmpty());
        assertTrue(attempt(store, name, handedThenGaveUp, true).isEmpty());
        assertTrue(attempt(store, name, last, true).isEmpty());
        store.cancel(name, gaveUp);
        store.release(held);
        assertEquals("handed-then-gave-up", holderOf(store, name), "a cancelled waiter was handed the lock");
        // Its wait ended before it confirmed: the lock goes on to the next waiter at once.
        store.cancel(name, handedThenGaveUp);
        assertEquals("last", holderOf(store, name));
        store.cancel(name, last);
        assertTrue(store.inspect(name).isEmpty(), "a cancel of the last waiter left its handed lock behind");
        assertQueueGone(name);
        take(store, name, owner("newcomer"));
    }

    @ParameterizedTest
    @ValueSource(strings = {"jedis", "redisson", "lettuce"})
    void aDeadWaitersLapsedPlaceIsPassedOver(String client, TestInfo info) {
        String name = RedisLockContract.unique(info) + client;
        LockProvider store = onSharedServer(client);
        Grant held = take(store, name, owner("holder"));
        Owner dead = owner("dead");
        Owner alive = owner("alive");
        assertTrue(attempt(store, name, dead, true).isEmpty());
        assertTrue(attempt(store, name, alive, true).isEmpty());
        // The dead waiter's last attempt was longer ago than a place lives: its entry says so.
        try (Jedis jedis = server.jedis()) {
            String entry = jedis.hget(RedisLockKeys.waitingKey(name), dead.id());
            assertTrue(entry != null && entry.matches("\\d+:30000:.+"), "unexpected waiter entry " + entry);
            jedis.hset(RedisLockKeys.waitingKey(name), dead.id(), "1" + entry.substring(entry.indexOf(':')));
        }
        store.release(held);
        assertEquals("alive", holderOf(store, name), "a release handed the lock to a waiter whose place lapsed");
        Grant handed = attempt(store, name, alive, true).orElseThrow();
        assertFalse(attempt(store, name, dead, true).isPresent(), "the dead waiter took a held lock");
        store.release(handed);
        // The dead waiter came back and queued again, at the end: it is the one left.
        assertEquals("dead", holderOf(store, name));
        store.cancel(name, dead);
        assertTrue(store.inspect(name).isEmpty());
    }

    @ParameterizedTest
    @ValueSource(strings = {"jedis", "redisson", "lettuce"})
    void aFreeLockGoesToTheQueuedWaiterBeforeANewcomer(String client, TestInfo info) {
        String name = RedisLockContract.unique(info) + client;
        LockProvider store = onSharedServer(client);
        take(store, name, owner("holder"));
        Owner waiter = owner("waiter");
        assertTrue(attempt(store, name, waiter, true).isEmpty());
        // The holder's lock expires instead of being released: no release hands it over.
        try (Jedis jedis = server.jedis()) {
            jedis.del(RedisLockKeys.lockKey(name));
        }
        assertTrue(attempt(store, name, owner("newcomer"), false).isEmpty(),
                "a newcomer took a free lock ahead of the waiter that queued first");
        assertEquals("waiter", holderOf(store, name));
        Grant confirmed = attempt(store, name, waiter, true).orElseThrow();
        store.release(confirmed);
        assertTrue(store.inspect(name).isEmpty());
    }

    @ParameterizedTest
    @ValueSource(strings = {"jedis", "redisson", "lettuce"})
    void anAbandonedWaiterLosesItsPlaceAndCannotTakeItBack(String client, TestInfo info) {
        String name = RedisLockContract.unique(info) + client;
        LockProvider store = onSharedServer(client);
        Grant held = take(store, name, owner("holder"));
        Owner abandoned = owner("abandoned");
        assertTrue(attempt(store, name, abandoned, true).isEmpty());
        store.releaseAmbiguous(name, abandoned);
        assertTrue(attempt(store, name, abandoned, true).isEmpty());
        store.release(held);
        assertTrue(store.inspect(name).isEmpty(), "an abandoned waiter was handed the lock");
        assertQueueGone(name);
        // A lock handed to a waiter whose attempt then failed ambiguously goes on as well.
        held = take(store, name, owner("holder"));
        Owner ambiguous = owner("ambiguous");
        Owner next = owner("next");
        assertTrue(attempt(store, name, ambiguous, true).isEmpty());
        assertTrue(attempt(store, name, next, true).isEmpty());
        store.release(held);
        store.releaseAmbiguous(name, ambiguous);
        assertEquals("next", holderOf(store, name));
        store.cancel(name, next);
        assertTrue(store.inspect(name).isEmpty());
    }

    /**
     * A handoff wakes the client of the waiter it went to and no other: the others' waiters would find the lock
     * taken, and sending them all to the store on every release is the herd that direct handoff avoids.
     */
    @ParameterizedTest
    @ValueSource(strings = {"jedis", "redisson", "lettuce"})
    void aHandoffWakesOnlyTheClientOfTheWaiterItWentTo(String client, TestInfo info) throws Exception {
        String name = RedisLockContract.unique(info) + client;
        LockProvider holder = onSharedServer(client);
        LockProvider waiting = onSharedServer(client);
        LockProvider bystander = onSharedServer(client);
        AtomicInteger waitingTold = new AtomicInteger();
        AtomicInteger bystanderTold = new AtomicInteger();
        try (AutoCloseable one = waiting.subscribe(name, waitingTold::incrementAndGet);
             AutoCloseable two = bystander.subscribe(name, bystanderTold::incrementAndGet)) {
            Grant held = take(holder, name, owner("holder"));
            Owner waiter = owner("waiter");
            assertTrue(attempt(waiting, name, waiter, true).isEmpty());
            // The bystander has a waiter on the name too, which is not the one the lock goes to.
            Owner later = owner("later");
            assertTrue(attempt(bystander, name, later, true).isEmpty());
            holder.release(held);
            org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(5)).until(() -> waitingTold.get() >= 1);
            Grant handed = attempt(waiting, name, waiter, true).orElseThrow();
            int bystanderBefore = bystanderTold.get();
            waiting.release(handed);
            // That release went to the bystander's waiter: now the bystander is told, once.
            org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(5))
                    .until(() -> bystanderTold.get() > bystanderBefore);
            assertEquals(0, bystanderBefore, "a handoff to another client's waiter woke the bystander");
            bystander.release(attempt(bystander, name, later, true).orElseThrow());
        }
    }

    /**
     * The waiter takes the lock from the release's message without a request: the server is frozen when it asks. Its
     * validity counts from its last attempt, which the handoff followed, so it is a little under the TTL.
     */
    @ParameterizedTest
    @ValueSource(strings = {"jedis", "redisson", "lettuce"})
    void aNotifiedWaiterTakesTheHandedLockWithoutARequest(String client, TestInfo info) throws Exception {
        RedisServer own = RedisServer.start();
        String name = RedisLockContract.unique(info) + client;
        try (LockProvider holder = provider("redis://" + own.address() + "?client=" + client);
             LockProvider waiting = provider("redis://" + own.address() + "?client=" + client)) {
            AtomicInteger told = new AtomicInteger();
            try (AutoCloseable subscription = waiting.subscribe(name, told::incrementAndGet)) {
                Grant held = take(holder, name, owner("holder"));
                Owner waiter = owner("waiter");
                long lastAttempt = System.nanoTime();
                // A long TTL: a handoff is taken without a request within 1 % of the TTL since the last attempt, and the
                // release, its message and pausing the server took over 300 ms (1 % of 30 s) at load 15-20.
                assertTrue(attempt(waiting, name, waiter, true, HANDOFF_TTL).isEmpty());
                holder.release(held);
                org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(5)).until(() -> told.get() >= 1);
                own.pause();
                Grant handed;
                try {
                    handed = attempt(waiting, name, waiter, true, HANDOFF_TTL).orElseThrow(() -> new AssertionError(
                            "the waiter did not take the lock it was told it was handed"));
                } finally {
                    own.resume();
                }
                assertTrue(handed.fencingToken() > held.fencingToken());
                assertEquals(holder.inspect(name).orElseThrow().fencingToken(), handed.fencingToken());
                Duration sinceLastAttempt = Duration.ofNanos(System.nanoTime() - lastAttempt);
                assertTrue(handed.validity().compareTo(HANDOFF_TTL) < 0
                                && handed.validity().compareTo(HANDOFF_TTL.minus(sinceLastAttempt)) >= 0,
                        "validity " + handed.validity() + " is not the TTL less the time since the last attempt, at most "
                                + sinceLastAttempt);
                assertTrue(waiting.release(handed));
            }
        } finally {
            own.close();
        }
    }

    /**
     * A message of a handoff that came before the waiter's last attempt says nothing of now: that lock may have gone
     * to someone else since (here it was taken from the waiter, and a newcomer took it), which the attempt saw. The
     * waiter must ask the server again: frozen, it does not answer, so the attempt fails instead of granting.
     */
    @ParameterizedTest
    @ValueSource(strings = {"jedis", "redisson", "lettuce"})
    void aHandoffBeforeTheLastAttemptIsNotTakenLocally(String client, TestInfo info) throws Exception {
        RedisServer own = RedisServer.start();
        String name = RedisLockContract.unique(info) + client;
        String uri = "redis://" + own.address() + "?client=" + client + "&timeout=300ms";
        try (LockProvider holder = provider(uri); LockProvider waiting = provider(uri)) {
            AtomicInteger told = new AtomicInteger();
            try (AutoCloseable subscription = waiting.subscribe(name, told::incrementAndGet)) {
                Grant held = take(holder, name, owner("holder"));
                Owner waiter = owner("waiter");
                long firstAttempt = System.nanoTime();
                assertTrue(attempt(waiting, name, waiter, true).isEmpty());
                holder.release(held);
                org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(5)).until(() -> told.get() >= 1);
                try (Jedis jedis = own.jedis()) {
                    jedis.del(RedisLockKeys.lockKey(name));
                }
                Grant newcomer = take(holder, name, owner("newcomer"));
                // Past the share of the TTL within which a handoff may be taken without a request: the next attempt
                // asks the server, which answers that the newcomer holds the lock.
                org.awaitility.Awaitility.await().pollDelay(Duration.ZERO).atMost(Duration.ofSeconds(5)).until(
                        () -> System.nanoTime() - firstAttempt > TTL.toNanos() / 100 + 50_000_000L);
                assertTrue(attempt(waiting, name, waiter, true).isEmpty(), "the waiter took a lock a newcomer holds");
                own.pause();
                try {
                    Optional<Grant> stale = attempt(waiting, name, waiter, true);
                    fail("with the server frozen, the waiter's attempt answered " + stale + ": it used the message"
                            + " of a handoff older than its last attempt");
                } catch (io.locksmith.LockStoreException expected) {
                    // it asked the server
                } finally {
                    own.resume();
                }
                waiting.cancel(name, waiter);
                holder.release(newcomer);
                assertTrue(holder.inspect(name).isEmpty());
            }
        } finally {
            own.close();
        }
    }

    @org.junit.jupiter.api.Test
    void redLockTakesNoPlaceInAnyQueue(TestInfo info) {
        String name = RedisLockContract.unique(info);
        String uri = "redlock://" + redLockServers.stream().map(RedisServer::address).collect(Collectors.joining(","));
        try (LockProvider a = provider(uri); LockProvider b = provider(uri)) {
            Grant held = take(a, name, owner("holder"));
            assertTrue(attempt(b, name, owner("waiter"), true).isEmpty());
            for (RedisServer node : redLockServers) {
                try (Jedis jedis = node.jedis()) {
                    assertFalse(jedis.exists(RedisLockKeys.queueKey(name)), "RedLock queued a waiter on " + node);
                }
            }
            a.release(held);
            assertTrue(a.inspect(name).isEmpty(), "a RedLock release handed the lock over");
        }
    }

    private static void assertQueueGone(String name) {
        try (Jedis jedis = server.jedis()) {
            if (jedis.exists(RedisLockKeys.queueKey(name)) || jedis.exists(RedisLockKeys.waitingKey(name))) {
                fail("the queue of '" + name + "' outlived its last waiter: " + jedis.zrange(RedisLockKeys.queueKey(name),
                        0, -1) + " " + jedis.hgetAll(RedisLockKeys.waitingKey(name)));
            }
        }
    }
}
