package io.locksmith.tck;

import io.locksmith.LockClient;
import io.locksmith.LockOptions;
import io.locksmith.mem.MemStore;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The safety checker must be seen to catch what it claims to catch. */
class FencedRegisterTest {

    @Test
    void rejectsStaleTokensAndCountsSharedTokensAsStaleWritesAccepted() {
        FencedRegister register = new FencedRegister();
        assertTrue(register.write(5, "a", 1));
        assertTrue(register.write(5, "a", 2), "the same holding writes again");
        assertFalse(register.write(4, "b", 3), "a lower token is stale");
        assertEquals(1, register.staleWritesRejected());
        assertTrue(register.write(5, "c", 4), "a second holding with the same token cannot be told apart");
        assertEquals(1, register.staleWritesAccepted());
        assertTrue(register.write(6, "d", 5));
        assertEquals(5, register.value());
        assertEquals(6, register.highestToken());
    }

    @Test
    void recordsEachStaleWriteWithItsWriterTokensAndVerdictInOrder() {
        FencedRegister register = new FencedRegister();
        register.write(5, "a", 1);
        register.write(4, "b", 2);
        register.write(5, "c", 3);
        register.write(6, "d", 4);

        List<FencedRegister.StaleWrite> stale = register.staleWrites();
        assertEquals(2, stale.size(), stale::toString);
        assertEquals("b", stale.get(0).writerId());
        assertEquals(4, stale.get(0).token());
        assertEquals(5, stale.get(0).highestToken());
        assertFalse(stale.get(0).accepted());
        assertEquals("c", stale.get(1).writerId());
        assertTrue(stale.get(1).accepted(), "the same token from another holding got through");
        assertTrue(stale.get(0).atNanos() - stale.get(1).atNanos() <= 0, "in the order they came");
    }

    @Test
    void readersShareButAWriterBesideAnyoneIsAnOverlapAndAStaleReadIsRejected() {
        FencedRegister register = new FencedRegister();
        FencedRegister.Hold reader = register.enterShared(3, "r1");
        FencedRegister.Hold otherReader = register.enterShared(4, "r2");
        assertEquals(0, register.overlaps(), "readers may be inside together");
        assertTrue(reader.read());
        FencedRegister.Hold writer = register.enter(5, "w");
        assertEquals(1, register.overlaps(), "a writer entered beside readers");
        reader.close();
        otherReader.close();
        assertTrue(writer.write(1));
        FencedRegister.Hold lateReader = register.enterShared(6, "r3");
        assertEquals(2, register.overlaps(), "a reader entered beside a writer");
        writer.close();
        lateReader.close();
        assertFalse(register.read(4), "a reader whose token is below a later writer's is stale");
        assertEquals(1, register.staleReadsRejected());
        assertEquals(1, register.readsAccepted());
        assertEquals(0, register.tokenMonotonicityViolations(), "readers that share are not ordered among themselves");
        register.enterShared(2, "r4").close();
        assertEquals(1, register.tokenMonotonicityViolations(), "a reader after a writer has a token below the writer's");
    }

    @Test
    void aMixedWorkloadOfReadersAndWritersOnAReadWriteLockIsSafe() {
        String store = "mem-" + UUID.randomUUID();
        try (LockClient a = LockClient.open("mem://" + store); LockClient b = LockClient.open("mem://" + store)) {
            FencedRegister register = new FencedRegister();
            WorkloadReport report = ContentionWorkload.on(List.of(a, b), "mixed-" + UUID.randomUUID())
                    .shape(LockShape.WRITE_LOCK).readers(0.7).threadsPerClient(3).operations(300)
                    .holdFor(Duration.ofMillis(1)).register(register).run();
            assertTrue(report.isSafe(), report::toString);
            assertEquals(0, report.overlaps(), report::toString);
            assertTrue(register.readsAccepted() > 0 && register.acceptedWrites() > 0, register::toString);
        }
    }

    @Test
    void readersNeedTheWriteLockShape() {
        try (LockClient a = LockClient.open("mem://" + UUID.randomUUID())) {
            ContentionWorkload workload = ContentionWorkload.on(List.of(a), "x").readers(0.5);
            IllegalStateException refused = org.junit.jupiter.api.Assertions.assertThrows(IllegalStateException.class,
                    workload::run);
            assertTrue(refused.getMessage().contains("write-lock"), refused.getMessage());
        }
    }

    @Test
    void countsOverlapsAndTokensThatGoBackwards() {
        FencedRegister register = new FencedRegister();
        FencedRegister.Hold first = register.enter(10, "a");
        FencedRegister.Hold second = register.enter(11, "b");
        assertEquals(1, register.overlaps(), "b entered while a was inside");
        first.close();
        second.close();
        second.close();
        try (FencedRegister.Hold third = register.enter(7, "c")) {
            third.write(1);
        }
        assertEquals(0, register.overlaps() - 1);
        assertEquals(1, register.tokenMonotonicityViolations(), "7 began after 10 and 11 had ended");
        assertEquals(3, register.intervals().size());
    }

    @Test
    void aHolderPausedPastItsLeaseIsFencedOff() {
        String store = "mem://register-" + UUID.randomUUID();
        String name = "stock:" + UUID.randomUUID();
        try (LockClient a = LockClient.open(store); LockClient b = LockClient.open(store)) {
            // The first holder pauses inside until the store dropped its lock and the other client has written.
            FencedRegister register = new FencedRegister();
            AtomicBoolean first = new AtomicBoolean(true);
            WorkloadReport report = ContentionWorkload.on(List.of(a, b), name)
                    .operations(2)
                    .threadsPerClient(1)
                    .acquireWait(Duration.ofSeconds(10))
                    .lockOptions(LockOptions.builder().leaseTime(Duration.ofSeconds(30)).build())
                    .register(register)
                    .inside((lease, client, operation) -> {
                        if (first.compareAndSet(true, false)) {
                            MemStore.named(store.substring("mem://".length())).expire(name);
                            long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                            await().atMost(Duration.ofSeconds(15)).until(
                                    () -> register.highestToken() > lease.fencingToken() || System.nanoTime() > until);
                        }
                    })
                    .run();
            assertEquals(2, report.operations(), report::toString);
            assertEquals(1, report.overlaps(), report::toString);
            assertEquals(1, report.staleWritesRejected(), report::toString);
            assertEquals(0, report.staleWritesAccepted(), report::toString);
            assertEquals(0, report.tokenMonotonicityViolations(), report::toString);
            assertTrue(report.toString().contains("1 stale write(s) rejected by the fence"), report::toString);
        }
    }
}
