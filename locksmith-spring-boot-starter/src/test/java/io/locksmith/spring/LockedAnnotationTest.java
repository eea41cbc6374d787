package io.locksmith.spring;

import io.locksmith.Lease;
import io.locksmith.LockClient;
import io.locksmith.LockConfigurationException;
import io.locksmith.LockInfo;
import io.locksmith.LockTimeoutException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.slf4j.MDC;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import java.time.Duration;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

@ExtendWith(OutputCaptureExtension.class)
class LockedAnnotationTest {

    private final String store = "mem://locked-" + UUID.randomUUID();
    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(LocksmithAutoConfiguration.class))
            .withUserConfiguration(Services.class)
            .withPropertyValues("locksmith.uri=" + store, "locksmith.annotation.default-wait=200ms");

    /** What a @Locked method saw of its lock while it ran. */
    record Seen(String name, long token, boolean held, Optional<LockInfo> inStore) {
    }

    static class OrderService {
        final AtomicInteger runs = new AtomicInteger();
        LockClient client;

        // Fields of a proxied bean are read through a method: the proxy's own fields are empty.
        public int runs() {
            return runs.get();
        }

        @Locked(name = "'order:' + #orderId", waitTime = "1s", leaseTime = "5s")
        public Seen ship(long orderId) {
            runs.incrementAndGet();
            Lease lease = LockContext.currentLease();
            return new Seen(lease.lockName(), LockContext.currentFencingToken(), lease.isHeld(),
                    client.inspect(lease.lockName()));
        }

        @Locked(name = "'order:' + #p0")
        public long[] shipTwice(long orderId, OrderService self) {
            long outer = LockContext.currentFencingToken();
            long inner = self.ship(orderId).token();
            return new long[] {outer, inner, LockContext.currentFencingToken()};
        }

        @Locked(name = "'report:' + #day", waitTime = "0s", onFailure = Locked.OnFailure.SKIP)
        public Optional<String> report(String day) {
            runs.incrementAndGet();
            return Optional.of("report " + day);
        }

        @Locked(name = "'job:' + #root.method.name", waitTime = "0s", onFailure = Locked.OnFailure.SKIP)
        public void nightlyJob() {
            runs.incrementAndGet();
        }

        @Locked(name = "'failing'")
        public void fail() {
            throw new IllegalStateException("boom");
        }

        @Locked(name = "'stock:' + #sku")
        public String deduct(String sku) {
            return LockContext.currentLease().lockName();
        }

        @Locked(name = "'stock:' + (#sku ?: 'all')")
        public String deductAll(String sku) {
            return LockContext.currentLease().lockName();
        }

        @Locked(name = "#root.args[0]")
        public void rawName(String name) {
        }

        @Locked(name = "'order:' + #order.id() + ':' + #order.lineKey()")
        public String byProperty(Order order) {
            return LockContext.currentLease().lockName();
        }
    }

    /** An order whose id may be missing (a draft), read by a property and a method in a lock name. */
    record Order(String id, String line) {
        public String lineKey() {
            return line == null ? null : "line-" + line;
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class Services {
        @Bean
        OrderService orderService(LockClient client) {
            OrderService service = new OrderService();
            service.client = client;
            return service;
        }
    }

    static class BadService {
        @Locked(name = "'x'", waitTime = "3 seconds")
        public void work() {
        }
    }

    static class PlaceholderService {
        @Locked(name = "'placeholder'", waitTime = "${test.lock-wait:0s}", leaseTime = "${test.lease}")
        public Duration leaseTtl() {
            return LockContext.currentLease().isHeld() ? Duration.ofSeconds(1) : Duration.ZERO;
        }
    }

    static class AsyncService {
        @Locked(name = "'x'")
        public java.util.concurrent.Future<String> work() {
            return null;
        }
    }

    @Test
    void methodRunsUnderItsLockWithTheLeaseInContext() {
        runner.run(context -> {
            OrderService service = context.getBean(OrderService.class);
            LockClient client = context.getBean(LockClient.class);
            Seen seen = service.ship(42);
            assertThat(seen.name()).isEqualTo("order:42");
            assertThat(seen.held()).isTrue();
            assertThat(seen.token()).isPositive();
            assertThat(seen.inStore()).isPresent();
            assertThat(seen.inStore().get().holder().clientId()).isEqualTo(client.clientId());
            assertThat(seen.inStore().get().timeToLive()).hasValueSatisfying(
                    ttl -> assertThat(ttl).isLessThanOrEqualTo(Duration.ofSeconds(5)));
            assertThat(client.inspect("order:42")).isEmpty();
            assertThat(LockContext.current()).isEmpty();
        });
    }

    @Test
    void nestedCallsOnTheSameNameReenterWithTheSameToken() {
        runner.run(context -> {
            OrderService service = context.getBean(OrderService.class);
            long[] tokens = service.shipTwice(7, service);
            assertThat(tokens[0]).isEqualTo(tokens[1]).isEqualTo(tokens[2]);
            assertThat(context.getBean(LockClient.class).heldCount()).isZero();
        });
    }

    @Test
    void busyLockThrowsTimeoutNamingTheLockAndTheMethodDoesNotRun() {
        runner.run(context -> {
            OrderService service = context.getBean(OrderService.class);
            try (LockClient other = LockClient.open(store);
                 Lease busy = other.lock("order:9").acquire(Duration.ofSeconds(1))) {
                assertThatThrownBy(() -> service.ship(9)).isInstanceOf(LockTimeoutException.class)
                        .hasMessageContaining("order:9");
                assertThat(service.runs()).isZero();
            }
            assertThat(service.ship(9).held()).isTrue();
        });
    }

    @Test
    void skipOutcomeReturnsEmptyOrNullWithoutRunning() {
        runner.run(context -> {
            OrderService service = context.getBean(OrderService.class);
            try (LockClient other = LockClient.open(store);
                 Lease report = other.lock("report:monday").acquire(Duration.ofSeconds(1));
                 Lease job = other.lock("job:nightlyJob").acquire(Duration.ofSeconds(1))) {
                assertThat(service.report("monday")).isEmpty();
                service.nightlyJob();
                assertThat(service.runs()).isZero();
            }
            assertThat(service.report("monday")).contains("report monday");
            service.nightlyJob();
            assertThat(service.runs()).isEqualTo(2);
        });
    }

    @Test
    void exceptionPropagatesAndTheLockIsReleased() {
        runner.run(context -> {
            assertThatThrownBy(() -> context.getBean(OrderService.class).fail()).isInstanceOf(IllegalStateException.class)
                    .hasMessage("boom");
            assertThat(context.getBean(LockClient.class).inspect("failing")).isEmpty();
            assertThat(LockContext.current()).isEmpty();
        });
    }

    @Test
    void nullParameterInTheNameIsAnErrorNeverALockOnNull() {
        runner.run(context -> {
            OrderService service = context.getBean(OrderService.class);
            assertThatThrownBy(() -> service.deduct(null)).isInstanceOf(LockConfigurationException.class)
                    .hasMessageContaining("OrderService.deduct").hasMessageContaining("#sku, which is null");
            assertThat(service.deduct("A-1")).isEqualTo("stock:A-1");
            // An expression that says what null means is the author's choice.
            assertThat(service.deductAll(null)).isEqualTo("stock:all");
            assertThatThrownBy(() -> service.rawName(null)).isInstanceOf(LockConfigurationException.class)
                    .hasMessageContaining("rawName").hasMessageContaining("gave null");
            assertThatThrownBy(() -> service.rawName(" ")).isInstanceOf(LockConfigurationException.class)
                    .hasMessageContaining("gave a blank name");
            // Null through a property or a method, not a parameter: two unrelated orders must not share "order:null".
            assertThatThrownBy(() -> service.byProperty(new Order(null, "7"))).isInstanceOf(
                    LockConfigurationException.class).hasMessageContaining("byProperty")
                    .hasMessageContaining("#order.id() is null");
            assertThatThrownBy(() -> service.byProperty(new Order("A-1", null))).isInstanceOf(
                    LockConfigurationException.class).hasMessageContaining("#order.lineKey() is null");
            assertThat(service.byProperty(new Order("A-1", "7"))).isEqualTo("order:A-1:line-7");
            assertThat(context.getBean(LockClient.class).heldCount()).isZero();
        });
    }

    @Test
    void badAnnotationFailsTheStartupNamingTheMethod() {
        runner.withBean(BadService.class).run(context -> assertThat(context).getFailure().rootCause()
                .isInstanceOf(LockConfigurationException.class).hasMessageContaining("BadService.work")
                .hasMessageContaining("3 seconds"));
        runner.withBean(AsyncService.class).run(context -> assertThat(context).getFailure().rootCause()
                .hasMessageContaining("AsyncService.work").hasMessageContaining("java.util.concurrent.Future"));
    }

    @Test
    void durationsResolvePropertyPlaceholders() {
        runner.withBean(PlaceholderService.class).withPropertyValues("test.lease=4s").run(context ->
                assertThat(context.getBean(PlaceholderService.class).leaseTtl()).isEqualTo(Duration.ofSeconds(1)));
        runner.withBean(PlaceholderService.class).withPropertyValues("test.lease=soon").run(context ->
                assertThat(context).getFailure().rootCause().hasMessageContaining("leaseTime \"soon\""));
    }

    @Test
    void lockEventsAreLoggedWithTheTraceIdAndHolder(CapturedOutput output) {
        runner.run(context -> {
            MDC.put("traceId", "trace-4711");
            try {
                context.getBean(OrderService.class).ship(4711);
            } finally {
                MDC.remove("traceId");
            }
            String clientId = context.getBean(LockClient.class).clientId();
            assertThat(output).contains("lock 'order:4711' acquired").contains("lock 'order:4711' released")
                    .contains("trace trace-4711").contains("client " + clientId);
        });
    }

    @Test
    void annotationCanBeSwitchedOff() {
        runner.withPropertyValues("locksmith.annotation.enabled=false").run(context -> {
            assertThat(context).doesNotHaveBean(LockedMethodAdvisor.class);
            assertThatThrownBy(() -> context.getBean(OrderService.class).ship(1)).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("no lock held");
        });
    }
}
