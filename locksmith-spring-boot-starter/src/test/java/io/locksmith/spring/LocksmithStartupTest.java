package io.locksmith.spring;

import io.locksmith.LockClient;
import io.locksmith.LockConfigurationException;
import io.locksmith.LockStoreException;
import io.locksmith.spi.ProviderClientBuilder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import java.time.Duration;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/** {@code locksmith.startup=fail|lazy}, the startup line, and the failure analysis of a start that fails. */
@ExtendWith(OutputCaptureExtension.class)
class LocksmithStartupTest {

    private final SwitchableStore switchable = new SwitchableStore();
    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(LocksmithAutoConfiguration.class,
                    LocksmithHealthAutoConfiguration.class))
            .withBean(Stock.class)
            .withBean(LockClientBuilderCustomizer.class, () -> builder -> ProviderClientBuilder.of(builder).factory(switchable))
            .withPropertyValues("locksmith.uri=mem://startup-" + UUID.randomUUID());

    static class Stock {
        @Locked(name = "'stock:' + #sku", waitTime = "10s")
        public String deduct(String sku) {
            return "deducted " + sku;
        }
    }

    @Test
    void lazyStartWhileTheStoreIsDownThenRecovers(CapturedOutput output) {
        switchable.down();
        runner.withPropertyValues("locksmith.startup=lazy", "locksmith.client-id=lazy-1").run(context -> {
            assertThat(context).hasNotFailed();
            LockClient client = context.getBean(LockClient.class);
            assertThat(client.clientId()).isEqualTo("lazy-1");
            assertThat(client.describe()).contains("not connected yet");
            Health down = context.getBean(LocksmithHealthIndicator.class).health();
            assertThat(down.getStatus()).isEqualTo(Status.DOWN);
            assertThat(down.getDetails().get("error").toString()).contains("has not answered since the application started");
            Stock stock = context.getBean(Stock.class);
            // Fails at once with a store error (503 on the web), not after the 10 s wait.
            long start = System.nanoTime();
            assertThatThrownBy(() -> stock.deduct("A")).isInstanceOf(LockStoreException.class)
                    .hasMessageContaining("stock:A").hasMessageContaining("locksmith.startup=lazy");
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(10));
            assertThat(output).contains("started without its store");

            switchable.up();
            await().atMost(Duration.ofSeconds(30)).until(() ->
                    context.getBean(LocksmithHealthIndicator.class).health().getStatus().equals(Status.UP));
            assertThat(stock.deduct("A")).isEqualTo("deducted A");
            assertThat(client.describe()).doesNotContain("not connected");
            assertThat(switchable.openAttempts.get()).isGreaterThan(1);
            assertThat(output).contains("Locksmith lock client lazy-1 connected to");
        });
    }

    @Test
    void lazyStartWithAnAnsweringStoreConnectsAtOnce(CapturedOutput output) {
        runner.withPropertyValues("locksmith.startup=lazy").run(context -> {
            assertThat(context.getBean(Stock.class).deduct("B")).isEqualTo("deducted B");
            assertThat(switchable.openAttempts.get()).isEqualTo(1);
            assertThat(output).contains("Locksmith lock client ").contains("(startup=lazy, capabilities");
        });
    }

    @Test
    void lazyStartStillFailsOnAConfigurationError() {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(LocksmithAutoConfiguration.class))
                .withPropertyValues("locksmith.uri=etcd://127.0.0.1:2379", "locksmith.startup=lazy")
                .run(context -> assertThat(context).getFailure().rootCause()
                        .isInstanceOf(LockConfigurationException.class)
                        .hasMessageContaining("io.locksmith:locksmith-etcd"));
    }

    @Test
    void failStartupIsTheDefault() {
        switchable.down();
        runner.run(context -> assertThat(context).getFailure().hasStackTraceContaining("switchable store is down"));
    }

    @Test
    void startupLogsOneInfoLineWithStoreClientIdAndTransport(CapturedOutput output) {
        runner.withPropertyValues("locksmith.client-id=orders-7").run(context -> {
            assertThat(output.getOut().lines().filter(line -> line.contains("Locksmith lock client orders-7 on")))
                    .singleElement().asString().contains("INFO").contains("switchable mem")
                    .contains("startup=fail");
        });
    }

    @Configuration(proxyBeanMethods = false)
    @ImportAutoConfiguration(LocksmithAutoConfiguration.class)
    static class App {
        @Bean
        Stock stock() {
            return new Stock();
        }
    }

    @Test
    void failedStartShowsTheLocksmithMessageInBootsFailureReport(CapturedOutput output) {
        SpringApplication app = new SpringApplication(App.class);
        app.setWebApplicationType(WebApplicationType.NONE);
        // item 8: an etcd:// URI without the etcd backend names the artifact that provides it
        assertThatThrownBy(() -> app.run("--locksmith.uri=etcd://127.0.0.1:2379", "--spring.main.banner-mode=off"))
                .isNotNull();
        assertThat(output).contains("APPLICATION FAILED TO START").contains("Description:")
                .contains("Locksmith: unknown lock store scheme 'etcd'").contains("io.locksmith:locksmith-etcd")
                .contains("Add the Locksmith artifact named above");
        assertThat(output).doesNotContain("locksmith-redis");
    }

    @Test
    void failedStoreSuggestsLazyStartup() {
        var analysis = new LocksmithFailureAnalyzer().analyze(new RuntimeException("wrapper",
                new LockStoreException("cannot reach redis://127.0.0.1:1", new java.net.ConnectException())));
        assertThat(analysis.getDescription()).contains("cannot reach redis://127.0.0.1:1");
        assertThat(analysis.getAction()).contains("locksmith.startup=lazy");
    }
}
