package io.locksmith.spring;

import io.locksmith.Lease;
import io.locksmith.LockConfigurationException;
import io.locksmith.LockTimeoutException;
import io.locksmith.PermitLease;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/** {@code @Locked} with {@code mode = READ/WRITE} and {@code semaphore = N}: what each lets in at once. */
class LockedPrimitivesTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(LocksmithAutoConfiguration.class))
            .withPropertyValues("locksmith.uri=mem://locked-primitives-" + UUID.randomUUID(),
                    "locksmith.annotation.default-wait=5s");

    /** Counts who is inside; each call stays until its latch opens. */
    static class Catalog {
        final AtomicInteger inside = new AtomicInteger();
        final AtomicInteger most = new AtomicInteger();
        volatile CountDownLatch release = new CountDownLatch(0);

        private long enter() throws InterruptedException {
            most.accumulateAndGet(inside.incrementAndGet(), Math::max);
            try {
                release.await(10, TimeUnit.SECONDS);
                return LockContext.currentFencingToken();
            } finally {
                inside.decrementAndGet();
            }
        }

        public int inside() {
            return inside.get();
        }

        public int most() {
            return most.get();
        }

        public void hold(CountDownLatch latch) {
            release = latch;
        }

        @Locked(name = "'catalog'", mode = Locked.Mode.READ)
        public long read() throws InterruptedException {
            return enter();
        }

        @Locked(name = "'catalog'", mode = Locked.Mode.WRITE)
        public long write() throws InterruptedException {
            return enter();
        }

        @Locked(name = "'catalog'", mode = Locked.Mode.READ)
        public void writeUnderRead(Catalog self) throws InterruptedException {
            self.write();
        }

        @Locked(name = "'exports'", semaphore = 2)
        public long export() throws InterruptedException {
            return enter();
        }

        @Locked(name = "'exports'", semaphore = 2, permits = 2, waitTime = "0s")
        public int exportAll() {
            return ((PermitLease) LockContext.currentLease()).permits();
        }

        @Locked(name = "'exports'", semaphore = 2)
        public CompletableFuture<Integer> exportLater() {
            Lease lease = LockContext.currentLease();
            return CompletableFuture.completedFuture(((PermitLease) lease).permits());
        }
    }

    static class BothModes {
        @Locked(name = "'x'", mode = Locked.Mode.READ, semaphore = 3)
        public void work() {
        }
    }

    static class PermitsWithoutSemaphore {
        @Locked(name = "'x'", permits = 2)
        public void work() {
        }
    }

    static class TooManyPermits {
        @Locked(name = "'x'", semaphore = 2, permits = 3)
        public void work() {
        }
    }

    static class ReadersOnAMutex {
        @Locked(name = "'x'", maxReaders = 4)
        public void work() {
        }
    }

    @Test
    void readersShareAndAWriterIsAlone() {
        runner.withBean(Catalog.class).run(context -> {
            Catalog catalog = context.getBean(Catalog.class);
            CountDownLatch latch = new CountDownLatch(1);
            catalog.hold(latch);
            ExecutorService pool = Executors.newFixedThreadPool(4);
            try {
                List<Future<Long>> reads = new ArrayList<>();
                for (int i = 0; i < 3; i++) {
                    reads.add(pool.submit(catalog::read));
                }
                await().atMost(Duration.ofSeconds(10)).until(() -> catalog.inside() == 3);
                Future<Long> write = pool.submit(catalog::write);
                // The writer waits for the three readers: nobody else comes in while they read.
                await().during(Duration.ofMillis(300)).atMost(Duration.ofSeconds(2)).until(() -> catalog.inside() == 3);
                latch.countDown();
                long writeToken = write.get(10, TimeUnit.SECONDS);
                for (Future<Long> read : reads) {
                    assertThat(read.get(10, TimeUnit.SECONDS)).isLessThan(writeToken);
                }
                assertThat(catalog.most()).isEqualTo(3);
            } finally {
                pool.shutdownNow();
            }
        });
    }

    @Test
    void aWriteUnderAReadIsRefusedAtOnce() {
        runner.withBean(Catalog.class).run(context -> {
            Catalog catalog = context.getBean(Catalog.class);
            assertThatThrownBy(() -> catalog.writeUnderRead(catalog)).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("upgrade refused").hasMessageContaining("catalog");
        });
    }

    @Test
    void aSemaphoreLetsInItsPermitsAndNoMore() {
        runner.withBean(Catalog.class).run(context -> {
            Catalog catalog = context.getBean(Catalog.class);
            CountDownLatch latch = new CountDownLatch(1);
            catalog.hold(latch);
            ExecutorService pool = Executors.newFixedThreadPool(3);
            try {
                List<Future<Long>> exports = new ArrayList<>();
                for (int i = 0; i < 3; i++) {
                    exports.add(pool.submit(catalog::export));
                }
                await().atMost(Duration.ofSeconds(10)).until(() -> catalog.inside() == 2);
                await().during(Duration.ofMillis(300)).atMost(Duration.ofSeconds(2)).until(() -> catalog.inside() == 2);
                // Both permits are taken: a call for both, without waiting, is refused.
                assertThatThrownBy(catalog::exportAll).isInstanceOf(LockTimeoutException.class)
                        .hasMessageContaining("exports");
                latch.countDown();
                for (Future<Long> export : exports) {
                    export.get(10, TimeUnit.SECONDS);
                }
                assertThat(catalog.most()).isEqualTo(2);
                assertThat(catalog.exportAll()).isEqualTo(2);
                assertThat(catalog.exportLater().get(10, TimeUnit.SECONDS)).isEqualTo(1);
            } finally {
                pool.shutdownNow();
            }
        });
    }

    @Test
    void contradictoryAttributesFailAtStartupNamingTheMethod() {
        runner.withBean(BothModes.class).run(context -> assertThat(context).getFailure().rootCause()
                .isInstanceOf(LockConfigurationException.class).hasMessageContaining("BothModes.work")
                .hasMessageContaining("semaphore = 3 and mode = READ"));
        runner.withBean(PermitsWithoutSemaphore.class).run(context -> assertThat(context).getFailure().rootCause()
                .hasMessageContaining("PermitsWithoutSemaphore.work").hasMessageContaining("needs semaphore = N"));
        runner.withBean(TooManyPermits.class).run(context -> assertThat(context).getFailure().rootCause()
                .hasMessageContaining("TooManyPermits.work").hasMessageContaining("between 1 and the semaphore's 2"));
        runner.withBean(ReadersOnAMutex.class).run(context -> assertThat(context).getFailure().rootCause()
                .hasMessageContaining("ReadersOnAMutex.work").hasMessageContaining("needs mode = READ or WRITE"));
    }
}
