package io.locksmith.shedlock;

import io.locksmith.LockClient;
import net.javacrumbs.shedlock.core.DefaultLockingTaskExecutor;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.LockExtender;
import net.javacrumbs.shedlock.core.SimpleLock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** What the adapter adds to ShedLock's contract (fencing tokens) and its answers to bad input, on {@code mem://}. */
class LocksmithLockProviderTest {

    private final String store = "mem://shedlock-" + UUID.randomUUID();
    private final LockClient client = LockClient.open(store);
    private final LockClient other = LockClient.open(store);

    @AfterEach
    void close() {
        client.close();
        other.close();
    }

    private static LockConfiguration config(String name, Duration atMost, Duration atLeast) {
        return new LockConfiguration(Instant.now(), name, atMost, atLeast);
    }

    @Test
    void eachLockHasAFencingTokenAboveThePreviousHoldersAndTheJobCanReadItsOwn() {
        String name = "job-" + UUID.randomUUID();
        LocksmithLockProvider provider = new LocksmithLockProvider(client);
        SimpleLock first = provider.lock(config(name, Duration.ofSeconds(30), Duration.ZERO)).orElseThrow();
        long firstToken = ((LocksmithSimpleLock) first).fencingToken();
        first.unlock();
        AtomicLong seenInJob = new AtomicLong();
        new DefaultLockingTaskExecutor(new LocksmithLockProvider(other)).executeWithLock((Runnable) () -> {
            seenInJob.set(LocksmithLockProvider.currentFencingToken());
            // Extending from inside the job keeps the token.
            LockExtender.extendActiveLock(Duration.ofSeconds(60), Duration.ZERO);
            assertEquals(seenInJob.get(), LocksmithLockProvider.currentFencingToken());
        }, config(name, Duration.ofSeconds(30), Duration.ZERO));
        assertTrue(seenInJob.get() > firstToken, "the second holder's token " + seenInJob.get()
                + " is not above the first's " + firstToken);
        assertThrows(IllegalStateException.class, LocksmithLockProvider::currentFencingToken,
                "the job's lock was unlocked: no token for this thread any more");
    }

    @Test
    void aLockHeldByAnotherProcessIsEmptyAndFreeAfterItsLockAtMostFor() {
        String name = "job-" + UUID.randomUUID();
        SimpleLock held = new LocksmithLockProvider(other).lock(config(name, Duration.ofMillis(300), Duration.ZERO))
                .orElseThrow();
        LocksmithLockProvider provider = new LocksmithLockProvider(client);
        assertTrue(provider.lock(config(name, Duration.ofSeconds(5), Duration.ZERO)).isEmpty());
        org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(5))
                .until(() -> provider.lock(config(name, Duration.ofSeconds(5), Duration.ZERO)).map(lock -> {
                    lock.unlock();
                    return true;
                }).orElse(false));
        held.unlock(); // owner-checked: the lock it had ran out, this frees nothing of anyone else's
    }

    @Test
    void badInputIsRefusedWithTheProblemNamed() {
        LocksmithLockProvider provider = new LocksmithLockProvider(client);
        assertThrows(NullPointerException.class, () -> new LocksmithLockProvider(null));
        assertThrows(NullPointerException.class, () -> provider.lock(null));
        IllegalArgumentException blank = assertThrows(IllegalArgumentException.class,
                () -> provider.lock(config(" ", Duration.ofSeconds(5), Duration.ZERO)));
        assertTrue(blank.getMessage().toLowerCase().contains("name"), blank.getMessage());
        String longName = "x".repeat(600);
        IllegalArgumentException tooLong = assertThrows(IllegalArgumentException.class,
                () -> provider.lock(config(longName, Duration.ofSeconds(5), Duration.ZERO)));
        assertTrue(tooLong.getMessage().contains("512") || tooLong.getMessage().contains("long"), tooLong.getMessage());
        IllegalArgumentException tooLongLease = assertThrows(IllegalArgumentException.class,
                () -> provider.lock(config("job-" + UUID.randomUUID(), Duration.ofDays(2), Duration.ZERO)));
        assertTrue(tooLongLease.getMessage().contains("lockAtMostFor") && tooLongLease.getMessage().contains("PT48H"),
                tooLongLease.getMessage());
        IllegalArgumentException zero = assertThrows(IllegalArgumentException.class,
                () -> provider.lock(config("job-" + UUID.randomUUID(), Duration.ZERO, Duration.ZERO)));
        assertTrue(zero.getMessage().contains("lockAtMostFor"), zero.getMessage());
    }
}
