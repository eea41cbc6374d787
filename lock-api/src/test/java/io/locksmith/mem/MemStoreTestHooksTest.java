package io.locksmith.mem;

import io.locksmith.Lease;
import io.locksmith.LockClient;
import io.locksmith.LockConfigurationException;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * MemStore's public helpers for tests ({@code expire}, {@code delete}, {@code size}, {@code name}) and the mem:// URI
 * grammar: what an application's tests rely on and no store-generic rule of the TCK can reach (docs/TCK.md, "PIT over
 * mem://").
 */
class MemStoreTestHooksTest {

    private final String storeName = "hooks-" + UUID.randomUUID();
    private final MemStore store = MemStore.named(storeName);

    @Test
    void expireAndDeleteAnswerWhetherALockWasThereAndWakeItsWaiters() throws Exception {
        try (LockClient client = LockClient.open("mem://" + storeName)) {
            for (boolean byExpire : new boolean[]{true, false}) {
                String name = "lock-" + UUID.randomUUID();
                AtomicInteger notices = new AtomicInteger();
                try (AutoCloseable subscription = store.subscribe(name, notices::incrementAndGet)) {
                    assertFalse(byExpire ? store.expire(name) : store.delete(name), "a free lock was dropped");
                    assertEquals(0, notices.get(), "dropping a free lock woke its waiters");

                    Lease lease = client.lock(name).acquire(Duration.ofSeconds(1));
                    assertTrue(byExpire ? store.expire(name) : store.delete(name), "a held lock was not dropped");
                    assertEquals(1, notices.get(), "dropping a held lock must wake its waiters at once");
                    assertTrue(client.inspect(name).isEmpty(), "the dropped lock is still shown");
                    lease.close();
                }
            }
        }
    }

    @Test
    void sizeCountsTheHeldLocksOnly() {
        try (LockClient client = LockClient.open("mem://" + storeName)) {
            assertEquals(0, store.size());
            Lease first = client.lock("a").acquire(Duration.ofSeconds(1));
            client.lock("b").acquire(Duration.ofSeconds(1)).close();
            assertEquals(1, store.size(), "a released lock was counted, or a held one not");
            store.expire("a");
            assertEquals(0, store.size());
            first.close();
        }
    }

    @Test
    void aStoreKnowsItsName() {
        assertEquals(storeName, store.name());
        assertEquals("", MemStore.named("").name());
        assertEquals("mem://" + storeName, store.toString());
    }

    @Test
    void aMemUriNamesOneStoreAndNoPath() {
        assertThrows(LockConfigurationException.class, () -> LockClient.open("mem://" + storeName + "/path"));
        assertThrows(LockConfigurationException.class, () -> LockClient.open("mem://one,two"));
        LockClient.open("mem://" + storeName + "/").close();
    }
}
