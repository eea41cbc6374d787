package io.locksmith.spring;

import io.locksmith.Lease;
import io.locksmith.LockClient;
import io.locksmith.LockConfigurationException;
import io.locksmith.LockStoreException;
import io.locksmith.LockTimeoutException;
import io.locksmith.spi.ProviderClientBuilder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.NestedExceptionUtils;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** What a {@code @Locked} call does when its lock is not obtained, per annotation and globally. */
@ExtendWith(OutputCaptureExtension.class)
class LockFailureStrategyTest {

    private final String store = "mem://failures-" + UUID.randomUUID();
    private final SwitchableStore switchable = new SwitchableStore();
    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(LocksmithAutoConfiguration.class))
            .withUserConfiguration(Beans.class)
            .withBean(LockClientBuilderCustomizer.class, () -> builder -> ProviderClientBuilder.of(builder).factory(switchable))
            .withPropertyValues("locksmith.uri=" + store, "locksmith.annotation.default-wait=100ms");

    static class Stock {
        final AtomicInteger runs = new AtomicInteger();

        public int runs() {
            return runs.get();
        }

        @Locked(name = "'stock:' + #sku")
        public String deduct(String sku) {
            runs.incrementAndGet();
            return "deducted " + sku;
        }

        @Locked(name = "'stock:' + #sku", onFailure = Locked.OnFailure.SKIP)
        public Optional<String> deductIfFree(String sku) {
            runs.incrementAndGet();
            return Optional.of("deducted " + sku);
        }

        @Locked(name = "'stock:' + #sku", failureHandler = "stockBusy")
        public String deductOrExplain(String sku) {
            runs.incrementAndGet();
            return "deducted " + sku;
        }

        @Locked(name = "'stock:' + #sku", onFailure = Locked.OnFailure.THROW)
        public String deductOrThrow(String sku) {
            runs.incrementAndGet();
            return "deducted " + sku;
        }
    }

    /** The failures handlers saw. */
    static final class Seen {
        final List<LockFailure> failures = new CopyOnWriteArrayList<>();
    }

    @Configuration(proxyBeanMethods = false)
    static class Beans {
        @Bean
        Stock stock() {
            return new Stock();
        }

        @Bean
        Seen seen() {
            return new Seen();
        }

        @Bean
        LockFailureHandler stockBusy(Seen seen) {
            return failure -> {
                seen.failures.add(failure);
                return (failure.isTimeout() ? "busy: " : "store down: ") + failure.lockName();
            };
        }
    }

    static class Unhandled {
        @Locked(name = "'x'", failureHandler = "noSuchHandler")
        public void work() {
        }
    }

    static class Contradicting {
        @Locked(name = "'x'", failureHandler = "stockBusy", onFailure = Locked.OnFailure.SKIP)
        public void work() {
        }
    }

    static class Counting {
        @Locked(name = "'count'", onFailure = Locked.OnFailure.SKIP)
        public int count() {
            return 1;
        }
    }

    @Test
    void defaultThrowsTheTimeoutWithOneWarnLineAndNoStackTrace(CapturedOutput output) {
        runner.run(context -> {
            Stock stock = context.getBean(Stock.class);
            try (LockClient other = LockClient.open(store); Lease busy = other.lock("stock:A").acquire()) {
                assertThatThrownBy(() -> stock.deduct("A")).isInstanceOf(LockTimeoutException.class)
                        .hasMessageContaining("stock:A");
            }
            assertThat(stock.runs()).isZero();
            List<String> lines = output.getOut().lines().filter(line -> line.contains("WARN")).toList();
            assertThat(lines).hasSize(1);
            assertThat(lines.get(0)).contains("WARN").contains("@Locked Stock.deduct(..)").contains("lock 'stock:A'")
                    .contains("within PT0.1S").contains("busy for the whole wait").contains("threw LockTimeoutException");
            assertThat(output.getOut()).doesNotContain("\tat io.locksmith");
        });
    }

    @Test
    void storeErrorIsThrownWithOneWarnLineNamingTheCause(CapturedOutput output) {
        runner.run(context -> {
            Stock stock = context.getBean(Stock.class);
            switchable.down();
            assertThatThrownBy(() -> stock.deduct("B")).isInstanceOf(LockStoreException.class);
            List<String> lines = output.getOut().lines().filter(line -> line.contains("WARN")).toList();
            assertThat(lines).hasSize(1);
            assertThat(lines.get(0)).contains("WARN").contains("store error").contains("Connection refused")
                    .contains("threw LockStoreException");
            assertThat(output.getOut()).doesNotContain("\tat ");
            switchable.up();
            // A known outage ends with the client's next probe (within 300 ms): calls until then fail fast.
            org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(5)).ignoreExceptionsInstanceOf(
                    LockStoreException.class).until(() -> "deducted B".equals(stock.deduct("B")));
        });
    }

    @Test
    void skipPerAnnotationSkipsBusyLocksQuietlyAndStoreErrorsWithAWarning(CapturedOutput output) {
        runner.run(context -> {
            Stock stock = context.getBean(Stock.class);
            try (LockClient other = LockClient.open(store); Lease busy = other.lock("stock:C").acquire()) {
                assertThat(stock.deductIfFree("C")).isEmpty();
            }
            assertThat(output.getOut()).doesNotContain("WARN");
            switchable.down();
            assertThat(stock.deductIfFree("D")).isEmpty();
            assertThat(stock.runs()).isZero();
            assertThat(output.getOut().lines().filter(line -> line.contains("WARN"))).singleElement()
                    .asString().contains("WARN").contains("skipped the call");
            switchable.up();
            // A known outage ends with the client's next probe (within 300 ms): until then the call is skipped.
            org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(5))
                    .until(() -> stock.deductIfFree("C").equals(Optional.of("deducted C")));
        });
    }

    @Test
    void handlerBeanDecidesTheOutcomeAndSeesWhatFailed() {
        runner.run(context -> {
            Stock stock = context.getBean(Stock.class);
            try (LockClient other = LockClient.open(store); Lease busy = other.lock("stock:E").acquire()) {
                assertThat(stock.deductOrExplain("E")).isEqualTo("busy: stock:E");
            }
            switchable.down();
            assertThat(stock.deductOrExplain("E")).isEqualTo("store down: stock:E");
            assertThat(stock.runs()).isZero();
            List<LockFailure> failures = context.getBean(Seen.class).failures;
            assertThat(failures).hasSize(2);
            assertThat(failures.get(0).isTimeout()).isTrue();
            assertThat(failures.get(0).method().getName()).isEqualTo("deductOrExplain");
            assertThat(failures.get(0).arguments()).containsExactly("E");
            assertThat(failures.get(0).waitTime()).isEqualTo(Duration.ofMillis(100));
            assertThat(failures.get(1).cause()).isInstanceOf(LockStoreException.class);
        });
    }

    @Test
    void globalStrategyAppliesToMethodsThatChooseNone() {
        runner.withPropertyValues("locksmith.annotation.on-failure=skip").run(context -> {
            Stock stock = context.getBean(Stock.class);
            switchable.down();
            assertThat(stock.deduct("F")).isNull();
            assertThatThrownBy(() -> stock.deductOrThrow("F")).isInstanceOf(LockStoreException.class);
            assertThat(stock.deductOrExplain("F")).isEqualTo("store down: stock:F");
        });
        switchable.up();
        runner.withPropertyValues("locksmith.annotation.failure-handler=stockBusy").run(context -> {
            switchable.down();
            assertThat(context.getBean(Stock.class).deduct("G")).isEqualTo("store down: stock:G");
            assertThat(context.getBean(Stock.class).deductIfFree("G")).isEmpty();
        });
    }

    @Test
    void strategyMistakesFailTheStartup() {
        runner.withBean(Unhandled.class).run(context -> assertThat(
                        NestedExceptionUtils.getMostSpecificCause(context.getStartupFailure()))
                .isInstanceOf(LockConfigurationException.class).hasMessageContaining("Unhandled.work")
                .hasMessageContaining("'noSuchHandler' is not a bean").hasMessageContaining("[stockBusy]"));
        runner.withBean(Contradicting.class).run(context -> assertThat(context).getFailure().rootCause()
                .hasMessageContaining("Contradicting.work").hasMessageContaining("both set"));
        runner.withBean(Counting.class).run(context -> assertThat(context).getFailure().rootCause()
                .hasMessageContaining("Counting.count").hasMessageContaining("SKIP").hasMessageContaining("int"));
        runner.withPropertyValues("locksmith.annotation.on-failure=skip", "locksmith.annotation.failure-handler=stockBusy")
                .run(context -> assertThat(context).getFailure().hasStackTraceContaining("choose one"));
    }
}
