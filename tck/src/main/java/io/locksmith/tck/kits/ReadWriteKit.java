package io.locksmith.tck.kits;

import io.locksmith.DistributedReadWriteLock;
import io.locksmith.Lease;
import io.locksmith.LockClient;
import io.locksmith.tck.TckRule;
import io.locksmith.tck.TckTiming;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The rules of the read-write lock (docs/SPEC.md R12): readers share, a writer is alone, a waiting writer keeps new
 * readers out, downgrade keeps writers out, upgrade is refused at once, tokens order readers and writers, and a
 * mixed workload never puts a writer beside anyone.
 */
public interface ReadWriteKit extends RuleKit {

    @Test
    default void required_r12_1_readersShareUpToTheirLimit() {
        KitContext kit = kitContext();
        TckTiming timing = kit.timing();
        String name = kit.name();
        List<Lease> readers = new ArrayList<>();
        try {
            for (int i = 0; i < 3; i++) {
                DistributedReadWriteLock lock = kit.client().readWriteLock(name, kit.longLease(), 3);
                readers.add(lock.readLock().tryAcquire(timing.slack()).orElseThrow(() -> new AssertionError(
                        "reader " + (readers.size() + 1) + " of 3 could not share read-write lock '" + name + "'")));
            }
            DistributedReadWriteLock fourth = kit.client().readWriteLock(name, kit.longLease(), 3);
            assertTrue(fourth.readLock().tryAcquire().isEmpty(), "a 4th reader got read-write lock '" + name
                    + "', which admits 3");
            for (Lease reader : readers) {
                assertTrue(reader.isHeld(), "a reader of '" + name + "' lost its lease while others read");
            }
        } finally {
            readers.forEach(Lease::close);
        }
    }

    @Test
    default void required_r12_2_aWriterIsAlone() {
        KitContext kit = kitContext();
        TckTiming timing = kit.timing();
        String name = kit.name();
        DistributedReadWriteLock a = kit.client().readWriteLock(name, kit.longLease(), 4);
        DistributedReadWriteLock b = kit.client().readWriteLock(name, kit.longLease(), 4);
        try (Lease write = a.writeLock().acquire(timing.slack())) {
            assertTrue(b.readLock().tryAcquire().isEmpty(), "a reader got '" + name + "' while a writer held it");
            assertTrue(b.writeLock().tryAcquire(timing.shortWait()).isEmpty(), "a second writer got '" + name
                    + "' while a writer held it");
            assertTrue(b.readLock().tryAcquire(timing.shortWait()).isEmpty(), "a reader got '" + name
                    + "' after a bounded wait while a writer held it");
            assertTrue(write.isHeld());
        }
        try (Lease read = b.readLock().acquire(timing.slack())) {
            assertTrue(a.writeLock().tryAcquire(timing.shortWait()).isEmpty(), "a writer got '" + name
                    + "' while a reader held it");
            assertTrue(read.isHeld());
        }
        a.writeLock().acquire(timing.slack()).close();
    }

    @Test
    default void required_r12_3_aWaitingWriterKeepsNewReadersOut() throws Exception {
        KitContext kit = kitContext();
        TckTiming timing = kit.timing();
        String name = kit.name();
        DistributedReadWriteLock reading = kit.client().readWriteLock(name, kit.longLease(), 4);
        DistributedReadWriteLock writing = kit.client().readWriteLock(name, kit.longLease(), 4);
        DistributedReadWriteLock newcomer = kit.client().readWriteLock(name, kit.longLease(), 4);
        Lease read = reading.readLock().acquire(timing.slack());
        CompletableFuture<Lease> write = writing.writeLock().acquireAsync(timing.longLease());
        // Once the writer waits, every newcomer is refused; before, one may still get in (and leaves at once).
        kit.within(timing.slack(), "the writer of '" + name + "' to wait ahead of new readers").until(() -> {
            Optional<Lease> early = newcomer.readLock().tryAcquire();
            early.ifPresent(Lease::close);
            return early.isEmpty();
        });
        assertTrue(newcomer.readLock().tryAcquire(timing.shortWait()).isEmpty(), "a new reader got '" + name
                + "' while a writer waited for the reader before it: readers can starve the writer");
        assertFalse(write.isDone(), "the writer got '" + name + "' while a reader held it: " + write);
        read.close();
        try (Lease written = write.get(timing.slack().toMillis(), TimeUnit.MILLISECONDS)) {
            assertTrue(newcomer.readLock().tryAcquire().isEmpty(), "a reader got '" + name + "' beside the writer");
            assertTrue(written.isHeld());
        } catch (java.util.concurrent.TimeoutException e) {
            throw new AssertionError("the waiting writer did not get '" + name + "' within " + timing.slack()
                    + " of the last reader's release", e);
        }
        newcomer.readLock().acquire(timing.slack()).close();
    }

    @Test
    default void required_r12_4_downgradeKeepsWritersOutAndLetsReadersIn() {
        KitContext kit = kitContext();
        TckTiming timing = kit.timing();
        String name = kit.name();
        DistributedReadWriteLock mine = kit.client().readWriteLock(name, kit.longLease(), 4);
        DistributedReadWriteLock other = kit.client().readWriteLock(name, kit.longLease(), 4);
        DistributedReadWriteLock writer = kit.client().readWriteLock(name, kit.longLease(), 4);
        Lease write = mine.writeLock().acquire(timing.slack());
        long token = write.fencingToken();
        Lease read = mine.downgrade(write);
        assertFalse(write.isHeld(), "the write lease of '" + name + "' is still held after its downgrade");
        assertTrue(read.isHeld(), "the read lease from a downgrade of '" + name + "' is not held");
        assertEquals(token, read.fencingToken(), "a downgrade of '" + name + "' changed the token");
        try (Lease otherRead = other.readLock().tryAcquire(timing.slack()).orElseThrow(() -> new AssertionError(
                "a reader could not get '" + name + "' after the writer downgraded"))) {
            assertTrue(writer.writeLock().tryAcquire(timing.shortWait()).isEmpty(), "a writer got '" + name
                    + "' while the downgraded writer still read it");
            assertTrue(otherRead.isHeld());
        }
        assertTrue(writer.writeLock().tryAcquire(timing.shortWait()).isEmpty(), "a writer got '" + name
                + "' while the downgraded writer still read it");
        read.close();
        writer.writeLock().acquire(timing.slack()).close();
    }

    @Test
    default void required_r12_5_anUpgradeIsRefusedAtOnce() {
        KitContext kit = kitContext();
        TckTiming timing = kit.timing();
        String name = kit.name();
        DistributedReadWriteLock lock = kit.client().readWriteLock(name, kit.longLease(), 4);
        try (Lease read = lock.readLock().acquire(timing.slack())) {
            IllegalStateException refused = assertThrows(IllegalStateException.class,
                    () -> lock.writeLock().acquire(timing.longLease()), "a thread holding a read lease of '" + name
                            + "' asked for the write lock: it must be refused at once, not wait for itself");
            assertTrue(refused.getMessage().contains(name), "the refusal should name the lock: " + refused.getMessage());
            assertThrows(IllegalStateException.class, () -> lock.writeLock().acquireAsync(timing.longLease()),
                    "an asynchronous upgrade must be refused too");
            assertTrue(read.isHeld(), "a refused upgrade dropped the read lease of '" + name + "'");
        }
        try (Lease write = lock.writeLock().acquire(timing.slack())) {
            assertThrows(IllegalStateException.class, () -> lock.readLock().acquire(timing.longLease()),
                    "a thread holding the write lease of '" + name + "' asked for the read lock: it must be told to"
                            + " downgrade, not wait for itself");
            assertTrue(write.isHeld());
        }
    }

    @Test
    default void optional_r12_6_tokensOrderReadersAndWriters() {
        KitContext kit = kitContext();
        TckTiming timing = kit.timing();
        LockClient client = kit.client();
        KitContext.requireCapability(client, TckRule.R12_6);
        String name = kit.name();
        DistributedReadWriteLock a = client.readWriteLock(name, kit.longLease(), 4);
        DistributedReadWriteLock b = kit.client().readWriteLock(name, kit.longLease(), 4);
        long last = Long.MIN_VALUE;
        for (int round = 0; round < 3; round++) {
            long write;
            try (Lease lease = a.writeLock().acquire(timing.slack())) {
                write = lease.fencingToken();
            }
            assertTrue(write > last, "write token " + write + " of '" + name + "' is not greater than every token"
                    + " granted before it (" + last + ")");
            try (Lease r1 = b.readLock().acquire(timing.slack()); Lease r2 = a.readLock().acquire(timing.slack())) {
                assertTrue(r1.fencingToken() > write && r2.fencingToken() > r1.fencingToken(), "read tokens "
                        + r1.fencingToken() + ", " + r2.fencingToken() + " of '" + name
                        + "' do not follow the write token " + write + " before them");
                last = r2.fencingToken();
            }
        }
    }

    @Test
    default void required_r12_7_aMixedWorkloadNeverPutsAWriterBesideAnyone() throws Exception {
        KitContext kit = kitContext();
        TckTiming timing = kit.timing();
        String name = kit.name();
        AtomicInteger readers = new AtomicInteger();
        AtomicInteger writers = new AtomicInteger();
        AtomicInteger reads = new AtomicInteger();
        AtomicInteger writes = new AtomicInteger();
        List<String> violations = Collections.synchronizedList(new ArrayList<>());
        List<Future<?>> workers = new ArrayList<>();
        long end = System.nanoTime() + timing.workloadDuration().toNanos();
        for (int c = 0; c < 3; c++) {
            DistributedReadWriteLock lock = kit.client().readWriteLock(name, kit.longLease(), 3);
            for (int t = 0; t < 2; t++) {
                workers.add(kit.submit(() -> {
                    while (System.nanoTime() - end < 0 && reads.get() + writes.get() < KitContext.PRIMITIVE_WORKLOAD_HOLDINGS
                            && !Thread.currentThread().isInterrupted()) {
                        boolean write = ThreadLocalRandom.current().nextInt(3) == 0;
                        Optional<Lease> lease = (write ? lock.writeLock() : lock.readLock()).tryAcquire(timing.slack());
                        if (lease.isEmpty()) {
                            continue;
                        }
                        try (Lease held = lease.get()) {
                            if (write) {
                                int w = writers.incrementAndGet();
                                int r = readers.get();
                                if (w > 1 || r > 0) {
                                    violations.add("a writer (token " + held.fencingToken() + ") beside " + (w - 1)
                                            + " writer(s) and " + r + " reader(s)");
                                }
                            } else {
                                readers.incrementAndGet();
                                if (writers.get() > 0) {
                                    violations.add("a reader (token " + held.fencingToken() + ") beside a writer");
                                }
                            }
                            TimeUnit.MILLISECONDS.sleep(ThreadLocalRandom.current().nextInt(1, 4));
                            (write ? writers : readers).decrementAndGet();
                        }
                        (write ? writes : reads).incrementAndGet();
                    }
                    return null;
                }));
            }
        }
        for (Future<?> worker : workers) {
            worker.get(timing.workloadDuration().plus(timing.slack().multipliedBy(3)).toMillis(), TimeUnit.MILLISECONDS);
        }
        assertTrue(violations.isEmpty(), "read-write lock '" + name + "': " + violations.size() + " overlaps, first: "
                + violations.subList(0, Math.min(5, violations.size())));
        assertTrue(reads.get() >= 3 && writes.get() >= 1, "too little progress on '" + name + "' under contention: "
                + reads.get() + " reads, " + writes.get() + " writes");
    }
}
