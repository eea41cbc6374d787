package io.locksmith.spring;

import io.locksmith.LockClient;
import io.locksmith.LockConfigurationException;
import io.locksmith.LockInfo;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ConfigurableApplicationContext;

import java.time.Duration;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * {@code @LeaderOnly} across instances: two application contexts on one {@code mem://} store are two instances of a
 * fleet; exactly one runs the work, the other takes over when it stops, and a run is interrupted when its term ends.
 */
class LeaderOnlyTest {

    private final String store = "mem://leader-only-" + UUID.randomUUID();
    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(LocksmithAutoConfiguration.class))
            .withPropertyValues("locksmith.uri=" + store, "locksmith.lease=2s", "jobs.election=billing")
            .withBean(Billing.class);

    static class Billing {
        final AtomicInteger runs = new AtomicInteger();
        volatile CountDownLatch blocker = new CountDownLatch(0);
        final CountDownLatch entered = new CountDownLatch(1);

        public int runs() {
            return runs.get();
        }

        public void block(CountDownLatch latch) {
            blocker = latch;
        }

        public boolean awaitEntered() throws InterruptedException {
            return entered.await(10, TimeUnit.SECONDS);
        }

        @LeaderOnly("${jobs.election}")
        public Optional<Long> bill() {
            runs.incrementAndGet();
            return Optional.of(LockContext.currentFencingToken());
        }

        /** Waits until released or interrupted: says which. */
        @LeaderOnly("${jobs.election}")
        public String longRun() {
            entered.countDown();
            try {
                return blocker.await(20, TimeUnit.SECONDS) ? "released" : "timed out";
            } catch (InterruptedException e) {
                return "interrupted";
            }
        }
    }

    static class PrimitiveResult {
        @LeaderOnly("x")
        public int count() {
            return 1;
        }
    }

    static class AsyncResult {
        @LeaderOnly("x")
        public CompletableFuture<String> later() {
            return null;
        }
    }

    @Test
    void exactlyOneInstanceRunsAndTheOtherTakesOverWhenItStops() {
        runner.run(first -> runner.run(second -> {
            Billing one = first.getBean(Billing.class);
            Billing two = second.getBean(Billing.class);
            // Both joined at start; one of them is elected.
            await().atMost(Duration.ofSeconds(10)).until(() -> one.bill().isPresent() || two.bill().isPresent());
            Billing leader = one.runs() > 0 ? one : two;
            Billing follower = leader == one ? two : one;
            int followerRuns = follower.runs();
            long term = leader.bill().orElseThrow();
            for (int tick = 0; tick < 20; tick++) {
                assertThat(follower.bill()).isEmpty();
                assertThat(leader.bill()).contains(term);
            }
            assertThat(follower.runs()).isEqualTo(followerRuns);
            LockClient observer = (leader == one ? second : first).getBean(LockClient.class);
            Optional<LockInfo> named = observer.election("billing").leader(Duration.ofSeconds(2));
            assertThat(named).map(LockInfo::fencingToken).contains(term);

            // The leader's application stops: it leaves, and the other instance is elected at once.
            ((ConfigurableApplicationContext) (leader == one ? first : second)).close();
            await().atMost(Duration.ofSeconds(10)).until(() -> follower.bill().isPresent());
            assertThat(follower.bill().orElseThrow()).isGreaterThan(term);
            // A last tick of the stopped application (its scheduler not shut down yet) is skipped: it does not join
            // again, and the new leader keeps its term.
            assertThat(leader.bill()).isEmpty();
            long newTerm = follower.bill().orElseThrow();
            assertThat(follower.bill()).contains(newTerm);
        }));
    }

    @Test
    void aRunIsInterruptedWhenItsTermEnds() {
        runner.run(context -> {
            Billing billing = context.getBean(Billing.class);
            await().atMost(Duration.ofSeconds(10)).until(() -> billing.bill().isPresent());
            billing.block(new CountDownLatch(1));
            CompletableFuture<String> run = CompletableFuture.supplyAsync(billing::longRun);
            assertThat(billing.awaitEntered()).isTrue();
            // The term ends while the call runs (here by leaving; a lost lease ends it the same way).
            context.getBean(LeaderOnlyAdvisor.class).candidates().candidate("billing").election.leave();
            assertThat(run.get(10, TimeUnit.SECONDS)).isEqualTo("interrupted");
            assertThat(billing.bill()).isEmpty();
        });
    }

    @Test
    void methodsThatCannotBeSkippedFailAtStartup() {
        new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(LocksmithAutoConfiguration.class))
                .withPropertyValues("locksmith.uri=" + store).withBean(PrimitiveResult.class)
                .run(context -> assertThat(context).getFailure().rootCause()
                        .isInstanceOf(LockConfigurationException.class)
                        .hasMessageContaining("PrimitiveResult.count").hasMessageContaining("no int to return"));
        new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(LocksmithAutoConfiguration.class))
                .withPropertyValues("locksmith.uri=" + store).withBean(AsyncResult.class)
                .run(context -> assertThat(context).getFailure().rootCause()
                        .hasMessageContaining("AsyncResult.later").hasMessageContaining("CompletableFuture"));
    }
}
