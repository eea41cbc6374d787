package io.locksmith.spring;

import io.locksmith.Lease;
import io.locksmith.LockClient;
import io.locksmith.LockConfigurationException;
import io.locksmith.LockOptions;
import io.locksmith.LockTimeoutException;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** {@link LockTemplate}, and {@code @Locked} on a type. */
class LockTemplateTest {

    private final String store = "mem://template-" + UUID.randomUUID();
    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(LocksmithAutoConfiguration.class))
            .withPropertyValues("locksmith.uri=" + store);

    @Test
    void executeWithLockReturnsTheCallbacksValueWithTheLeaseInScope() {
        runner.run(context -> {
            LockTemplate template = context.getBean(LockTemplate.class);
            LockClient client = context.getBean(LockClient.class);
            String seen = template.executeWithLock("stock:A", Duration.ofSeconds(1), () -> {
                Lease lease = LockContext.currentLease();
                assertThat(lease.isHeld()).isTrue();
                assertThat(client.inspect("stock:A")).isPresent();
                return lease.lockName() + "@" + lease.fencingToken();
            });
            assertThat(seen).startsWith("stock:A@");
            long token = template.executeWithLock("stock:A", Duration.ofSeconds(1), Lease::fencingToken);
            assertThat(token).isGreaterThan(Long.parseLong(seen.substring("stock:A@".length())));
            assertThat(client.inspect("stock:A")).isEmpty();
            assertThat(LockContext.current()).isEmpty();
        });
    }

    @Test
    void callbacksAreMutuallyExclusiveAcrossThreads() {
        runner.run(context -> {
            LockTemplate template = context.getBean(LockTemplate.class);
            AtomicInteger inside = new AtomicInteger();
            AtomicInteger overlaps = new AtomicInteger();
            int[] counter = {0};
            ExecutorService pool = Executors.newFixedThreadPool(4);
            try {
                List<Future<?>> calls = new ArrayList<>();
                for (int i = 0; i < 40; i++) {
                    calls.add(pool.submit(() -> template.runWithLock("counter", Duration.ofSeconds(20), () -> {
                        if (inside.incrementAndGet() > 1) {
                            overlaps.incrementAndGet();
                        }
                        int read = counter[0];
                        Thread.yield();
                        counter[0] = read + 1;
                        inside.decrementAndGet();
                    })));
                }
                for (Future<?> call : calls) {
                    call.get();
                }
            } finally {
                pool.shutdownNow();
            }
            assertThat(overlaps.get()).isZero();
            assertThat(counter[0]).isEqualTo(40);
        });
    }

    @Test
    void busyLockThrowsWithoutRunningAndCallbackFailuresReleaseTheLock() {
        runner.run(context -> {
            LockTemplate template = context.getBean(LockTemplate.class);
            AtomicInteger runs = new AtomicInteger();
            try (LockClient other = LockClient.open(store); Lease busy = other.lock("stock:B").acquire()) {
                assertThatThrownBy(() -> template.executeWithLock("stock:B", Duration.ofMillis(50), runs::incrementAndGet))
                        .isInstanceOf(LockTimeoutException.class).hasMessageContaining("stock:B");
            }
            assertThat(runs.get()).isZero();
            assertThatThrownBy(() -> template.runWithLock("stock:B", Duration.ofSeconds(1), () -> {
                throw new IllegalStateException("boom");
            })).isInstanceOf(IllegalStateException.class).hasMessage("boom");
            assertThat(context.getBean(LockClient.class).inspect("stock:B")).isEmpty();
        });
    }

    @Test
    void optionsOverrideTheLeaseAndNestedCallsReenter() {
        runner.run(context -> {
            LockTemplate template = context.getBean(LockTemplate.class);
            LockClient client = context.getBean(LockClient.class);
            LockOptions shortLease = LockOptions.builder().leaseTime(Duration.ofSeconds(4)).fixedLease().build();
            long[] tokens = template.executeWithLock("stock:C", Duration.ofSeconds(1), shortLease, outer -> {
                assertThat(client.inspect("stock:C").orElseThrow().timeToLive()).hasValueSatisfying(
                        ttl -> assertThat(ttl).isLessThanOrEqualTo(Duration.ofSeconds(4)));
                long inner = template.executeWithLock("stock:C", Duration.ZERO, Lease::fencingToken);
                return new long[] {outer.fencingToken(), inner};
            });
            assertThat(tokens[0]).isEqualTo(tokens[1]);
            assertThat(client.heldCount()).isZero();
        });
    }

    /** Every public method of the class is guarded; a method's own annotation wins. */
    @Locked(name = "'inventory'", waitTime = "0s", onFailure = Locked.OnFailure.SKIP)
    static class Inventory {
        public String count() {
            return LockContext.currentLease().lockName();
        }

        @Locked(name = "'inventory:' + #sku")
        public String deduct(String sku) {
            return LockContext.currentLease().lockName();
        }

        @Override
        public String toString() {
            return "Inventory";
        }
    }

    @Locked(name = "'shelf:' + #sku")
    static class Shelf {
        public void put(String sku) {
        }

        public void clear() {
        }
    }

    @Test
    void onATypeEveryPublicMethodIsGuarded() {
        runner.withBean(Inventory.class).run(context -> {
            Inventory inventory = context.getBean(Inventory.class);
            assertThat(inventory.count()).isEqualTo("inventory");
            assertThat(inventory.deduct("A")).isEqualTo("inventory:A");
            assertThat(inventory.toString()).isEqualTo("Inventory");
            try (LockClient other = LockClient.open(store); Lease busy = other.lock("inventory").acquire()) {
                assertThat(inventory.count()).isNull();
            }
        });
        // The class's name must fit every method it guards.
        runner.withBean(Shelf.class).run(context -> assertThat(context).getFailure().rootCause()
                .isInstanceOf(LockConfigurationException.class).hasMessageContaining("Shelf.clear")
                .hasMessageContaining("#sku, which is not a parameter"));
    }
}
