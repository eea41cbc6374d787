package io.locksmith.spring;

import io.locksmith.LockStoreException;
import io.locksmith.micrometer.LockMetrics;
import io.locksmith.tck.server.ServerProcess;
import io.locksmith.tck.server.StoreServers;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import reactor.core.publisher.Mono;

import java.util.UUID;
import java.util.concurrent.CompletableFuture;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * What one {@code @Locked} call that fails during a store outage leaves behind, on a real redis-server that is
 * killed or frozen while the application runs: one {@code locksmith.acquire{outcome=failed}} sample (a call, not each
 * attempt the client made within the wait) and one WARN line naming the lock and the cause.
 */
@ExtendWith(OutputCaptureExtension.class)
class LocksmithOutageReportTest {

    private ServerProcess redis;

    @BeforeEach
    void startRedis() {
        redis = StoreServers.redis();
    }

    @AfterEach
    void stopRedis() {
        if (redis.isAlive()) {
            redis.resume();
        }
        redis.close();
    }

    static class Stock {
        @Locked(name = "'stock:' + #sku", waitTime = "3s")
        public String deduct(String sku) {
            return "deducted " + sku;
        }

        @Locked(name = "'stock:' + #sku", waitTime = "3s")
        public CompletableFuture<String> deductLater(String sku) {
            return CompletableFuture.completedFuture("deducted " + sku);
        }

        @Locked(name = "'stock:' + #sku", waitTime = "3s")
        public Mono<String> deductReactively(String sku) {
            return Mono.just("deducted " + sku);
        }
    }

    private ApplicationContextRunner runner() {
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(LocksmithAutoConfiguration.class,
                        LocksmithMetricsAutoConfiguration.class))
                .withBean(MeterRegistry.class, SimpleMeterRegistry::new)
                .withBean(Stock.class)
                // A short command time-out: a frozen store's wait makes several attempts, as a longer wait would.
                .withPropertyValues("locksmith.uri=redis://127.0.0.1:" + redis.port() + "?timeout=200ms");
    }

    @ParameterizedTest
    @CsvSource({"killed, blocking", "frozen, blocking", "killed, future", "frozen, future", "killed, mono",
            "frozen, mono"})
    void aFailedCallIsOneSampleAndOneWarnLine(String outage, String method, CapturedOutput output) {
        runner().run(context -> {
            Stock stock = context.getBean(Stock.class);
            MeterRegistry registry = context.getBean(MeterRegistry.class);
            assertThat(stock.deduct("warm-up")).isEqualTo("deducted warm-up");
            if (outage.equals("killed")) {
                redis.kill();
            } else {
                redis.pause();
            }
            String sku = UUID.randomUUID().toString();
            int linesBefore = output.getOut().length();
            if (method.equals("blocking")) {
                assertThatThrownBy(() -> stock.deduct(sku)).isInstanceOf(LockStoreException.class);
            } else if (method.equals("future")) {
                assertThatThrownBy(() -> stock.deductLater(sku).join()).hasCauseInstanceOf(LockStoreException.class);
            } else {
                assertThatThrownBy(() -> stock.deductReactively(sku).block()).isInstanceOf(LockStoreException.class);
            }

            Timer failed = registry.find(LockMetrics.ACQUIRE).tag("outcome", "failed").timer();
            assertThat(failed).as("the failed-acquire timer").isNotNull();
            assertThat(failed.count()).as("samples of one failed call").isEqualTo(1);

            String[] warnings = output.getOut().substring(linesBefore).lines()
                    .filter(line -> line.contains(" WARN ") && line.contains("stock:" + sku)).toArray(String[]::new);
            assertThat(warnings).as("WARN lines of one failed call").hasSize(1);
            assertThat(warnings[0]).contains("Stock.deduct").contains("store error");
        });
    }
}
