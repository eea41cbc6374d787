package io.locksmith.spring;

import io.locksmith.LockClient;
import io.locksmith.LockConfigurationException;
import io.locksmith.tck.server.ServerProcess;
import io.locksmith.tck.server.StoreServers;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * {@code @Locked(minHold = ...)}, ShedLock's {@code lockAtLeastFor}: a scheduled job that finishes early keeps its lock
 * until {@code minHold} after its acquire, so the other instances skip that tick. Several application contexts, each
 * with its own {@link LockClient}, on one real redis-server stand in for the instances of a fleet.
 */
class LockedMinHoldTest {

    private static ServerProcess redis;

    @BeforeAll
    static void startRedis() {
        redis = StoreServers.redis();
    }

    @AfterAll
    static void stopRedis() {
        redis.close();
    }

    /** A 5 ms job run on every instance at each tick; the first instance runs it, the others skip. */
    static class Job {
        final AtomicInteger runs = new AtomicInteger();

        public int runs() {
            return runs.get();
        }

        @Locked(name = "'job:' + #name", waitTime = "0s", minHold = "3s", onFailure = Locked.OnFailure.SKIP)
        public void tick(String name) throws InterruptedException {
            runs.incrementAndGet();
            Thread.sleep(5); // the job's work
        }

        @Locked(name = "'job:' + #name", waitTime = "0s", minHold = "3s", onFailure = Locked.OnFailure.SKIP)
        public void failingTick(String name) {
            runs.incrementAndGet();
            throw new IllegalStateException("job failed");
        }
    }

    private static ApplicationContextRunner instances() {
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(LocksmithAutoConfiguration.class))
                .withBean(Job.class)
                .withPropertyValues("locksmith.uri=redis://127.0.0.1:" + redis.port());
    }

    @Test
    void aTickRunsOnceAcrossInstancesAndTheNextAfterTheMinimumHold() {
        String name = "tick-" + UUID.randomUUID();
        ApplicationContextRunner runner = instances();
        runner.run(one -> runner.run(two -> runner.run(three -> {
            Job first = one.getBean(Job.class);
            Job second = two.getBean(Job.class);
            Job third = three.getBean(Job.class);
            assertThat(one.getBean(LockClient.class)).isNotSameAs(two.getBean(LockClient.class));

            long start = System.nanoTime();
            first.tick(name);
            // The other instances' clocks fire a few ms later: the 5 ms job has returned, its lock is still held.
            second.tick(name);
            third.tick(name);
            assertThat(first.runs() + second.runs() + third.runs()).isEqualTo(1);

            await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(100)).until(() -> {
                second.tick(name);
                return second.runs() == 1;
            });
            // The lock was acquired after start, so the next run cannot have come sooner than minHold after it.
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(Duration.ofSeconds(3));
            assertThat(first.runs()).isEqualTo(1);
        })));
    }

    @Test
    void aJobThatThrowsKeepsItsLockForTheMinimumHoldToo() {
        String name = "failing-" + UUID.randomUUID();
        ApplicationContextRunner runner = instances();
        runner.run(one -> runner.run(two -> {
            Job first = one.getBean(Job.class);
            Job second = two.getBean(Job.class);
            assertThatThrownBy(() -> first.failingTick(name)).hasMessage("job failed");
            second.tick(name);
            assertThat(second.runs()).isZero();
            await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(100)).until(() -> {
                second.tick(name);
                return second.runs() == 1;
            });
        }));
    }

    static class Negative {
        @Locked(name = "'x'", minHold = "-PT1S")
        public void work() {
        }
    }

    static class NotADuration {
        @Locked(name = "'x'", minHold = "${jobs.min-hold:soon}")
        public void work() {
        }
    }

    static class LongerThanMaxHold {
        @Locked(name = "'x'", minHold = "5m", maxHold = "1m")
        public void work() {
        }
    }

    static class LongerThanFixedLease {
        @Locked(name = "'x'", minHold = "30s", leaseTime = "10s", renewal = Locked.Renewal.FIXED)
        public void work() {
        }
    }

    static class OnSemaphore {
        @Locked(name = "'x'", minHold = "1s", semaphore = 2)
        public void work() {
        }
    }

    static class OnFuture {
        @Locked(name = "'x'", minHold = "1s")
        public CompletableFuture<String> work() {
            return CompletableFuture.completedFuture("done");
        }
    }

    static class Fine {
        @Locked(name = "'x'", minHold = "30s", leaseTime = "10s", maxHold = "1m")
        public void work() {
        }
    }

    @Test
    void aMinimumHoldThatCannotWorkFailsTheStartupNamingTheMethod() {
        ApplicationContextRunner runner = new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(LocksmithAutoConfiguration.class))
                .withPropertyValues("locksmith.uri=mem://min-hold-" + UUID.randomUUID());
        expectFailure(runner, Negative.class, "minHold must be zero or positive, was -PT1S");
        expectFailure(runner, NotADuration.class, "minHold \"soon\" is not a duration");
        expectFailure(runner, LongerThanMaxHold.class, "minHold (PT5M) must not be longer than maxHold (PT1M)");
        expectFailure(runner, LongerThanFixedLease.class,
                "minHold (PT30S) must not be longer than the fixed leaseTime (PT10S)");
        expectFailure(runner, OnSemaphore.class, "minHold needs a mutex");
        expectFailure(runner, OnFuture.class, "minHold is not supported on a method returning CompletableFuture");
        runner.withBean(Fine.class).run(context -> assertThat(context).hasNotFailed());
    }

    private static void expectFailure(ApplicationContextRunner runner, Class<?> bean, String problem) {
        runner.withBean(bean).run(context -> assertThat(context).getFailure().rootCause()
                .isInstanceOf(LockConfigurationException.class)
                .hasMessageContaining("LockedMinHoldTest$" + bean.getSimpleName() + ".work")
                .hasMessageContaining(problem));
    }
}
