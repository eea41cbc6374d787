package io.locksmith.spring;

import io.locksmith.Lease;
import io.locksmith.LockClient;
import io.locksmith.LockConfigurationException;
import io.locksmith.LockOptions;
import io.locksmith.LossAction;
import io.locksmith.micrometer.LockMetrics;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.slf4j.MDC;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertThrows;

@ExtendWith(OutputCaptureExtension.class)
class LocksmithAutoConfigurationTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(LocksmithAutoConfiguration.class,
                    LocksmithMetricsAutoConfiguration.class, LocksmithHealthAutoConfiguration.class));

    private static String memUri() {
        return "locksmith.uri=mem://starter-" + UUID.randomUUID();
    }

    @Test
    void clientIsBuiltFromPropertiesAndClosedWithTheContext() {
        AtomicReference<LockClient> seen = new AtomicReference<>();
        runner.withPropertyValues(memUri(), "locksmith.lease=12s", "locksmith.max-hold=2m", "locksmith.renew=false",
                        "locksmith.on-loss=NOTIFY_AND_INTERRUPT_HOLDER", "locksmith.client-id=orders-1")
                .run(context -> {
                    LockClient client = context.getBean(LockClient.class);
                    seen.set(client);
                    LockOptions options = client.lock("order:1").options();
                    assertThat(options.leaseTime()).isEqualTo(Duration.ofSeconds(12));
                    assertThat(options.maxHold()).contains(Duration.ofMinutes(2));
                    assertThat(options.isRenewing()).isFalse();
                    assertThat(options.lossAction()).isEqualTo(LossAction.NOTIFY_AND_INTERRUPT_HOLDER);
                    assertThat(client.clientId()).isEqualTo("orders-1");
                    assertThat(context).hasSingleBean(LockEventLogger.class);
                });
        assertThrows(IllegalStateException.class, () -> seen.get().lock("after-close"));
    }

    @Test
    void uriParametersApplyWhenNoLeasePropertyIsSet() {
        runner.withPropertyValues("locksmith.uri=mem://starter-" + UUID.randomUUID() + "?lease=7s")
                .run(context -> assertThat(context.getBean(LockClient.class).lock("a").options().leaseTime())
                        .isEqualTo(Duration.ofSeconds(7)));
    }

    @Test
    void leaseSetInBothUriAndPropertiesIsRefused() {
        runner.withPropertyValues("locksmith.uri=mem://starter-" + UUID.randomUUID() + "?lease=7s", "locksmith.lease=9s")
                .run(context -> assertThat(context).getFailure().rootCause()
                        .isInstanceOf(LockConfigurationException.class).hasMessageContaining("set twice")
                        .hasMessageContaining("'lease'"));
    }

    @Test
    void missingUriFailsTheStartupNamingTheProperty() {
        // Without Spring Data Redis: with it, the application's Redis is the store (SpringDataRedisReuseTest).
        runner.withClassLoader(new org.springframework.boot.test.context.FilteredClassLoader(
                        org.springframework.data.redis.connection.RedisConnectionFactory.class))
                .run(context -> assertThat(context).getFailure().rootCause()
                .isInstanceOf(LockConfigurationException.class).hasMessageContaining("locksmith.uri"));
    }

    @Test
    void unknownSchemeFailsTheStartupNamingIt() {
        runner.withPropertyValues("locksmith.uri=nosuchstore://x").run(context -> assertThat(context).getFailure()
                .rootCause().hasMessageContaining("nosuchstore"));
    }

    @Test
    void customizersAdjustTheBuilderLast() {
        runner.withPropertyValues(memUri())
                .withBean(LockClientBuilderCustomizer.class, () -> builder -> builder.traceIdSupplier(() -> "custom-trace"))
                .run(context -> {
                    LockClient client = context.getBean(LockClient.class);
                    try (Lease lease = client.lock("custom:1").acquire(Duration.ofSeconds(1))) {
                        assertThat(lease.holder().traceId()).isEqualTo("custom-trace");
                        assertThat(client.inspect("custom:1")).hasValueSatisfying(
                                info -> assertThat(info.holder().traceId()).isEqualTo("custom-trace"));
                    }
                });
    }

    @Test
    void backsOffWhenTheApplicationDefinesItsOwnClient() {
        runner.withUserConfiguration(OwnClient.class).run(context -> {
            assertThat(context).hasSingleBean(LockClient.class);
            assertThat(context.getBean(LockClient.class).clientId()).isEqualTo("own-client");
        });
    }

    @Test
    void canBeSwitchedOff() {
        runner.withPropertyValues("locksmith.enabled=false").run(context -> {
            assertThat(context).doesNotHaveBean(LockClient.class);
            assertThat(context).doesNotHaveBean(LockedMethodAdvisor.class);
        });
    }

    @Test
    void healthIsUpWithRoundTripTime() {
        runner.withPropertyValues(memUri()).run(context -> {
            Health health = context.getBean(LocksmithHealthIndicator.class).health();
            assertThat(health.getStatus()).isEqualTo(Status.UP);
            assertThat(health.getDetails()).containsKeys("roundTripMs", "store", "clientId", "heldLocks");
            assertThat(health.getDetails().get("store").toString()).startsWith("mem://");
        });
    }

    @Test
    void healthIsDownWhenTheStoreFails() {
        runner.withPropertyValues(memUri()).run(context -> {
            LockClient client = context.getBean(LockClient.class);
            client.close(); // the client refuses every call now, as an unreachable store would fail them
            Health health = new LocksmithHealthIndicator(client, "probe").health();
            assertThat(health.getStatus()).isEqualTo(Status.DOWN);
            assertThat(health.getDetails()).containsKey("error");
        });
    }

    @Test
    void metricsAreRecordedWhenAMeterRegistryExists() {
        runner.withUserConfiguration(Registry.class).withPropertyValues(memUri(), "locksmith.metrics.max-name-groups=1")
                .run(context -> {
                    LockClient client = context.getBean(LockClient.class);
                    MeterRegistry registry = context.getBean(MeterRegistry.class);
                    try (Lease lease = client.lock("order:1").acquire(Duration.ofSeconds(1))) {
                        assertThat(registry.get(LockMetrics.HELD).gauge().value()).isEqualTo(1.0);
                    }
                    client.lock("stock:1").acquire(Duration.ofSeconds(1)).close();
                    assertThat(registry.get(LockMetrics.ACQUIRE).tags("group", "order", "outcome", "acquired")
                            .timer().count()).isEqualTo(1);
                    assertThat(registry.get(LockMetrics.ACQUIRE).tags("group", "other").timer().count()).isEqualTo(1);
                    assertThat(registry.get(LockMetrics.HOLD).tags("store", "mem").timers()).isNotEmpty();
                });
    }

    @Test
    void lossIsLoggedAndCountedWithTheHoldersTraceIdOffItsThread(CapturedOutput output) {
        runner.withUserConfiguration(Registry.class).withPropertyValues(memUri()).run(context -> {
            LockClient client = context.getBean(LockClient.class);
            Lease lease;
            MDC.put("traceId", "trace-loss-1");
            try {
                lease = client.lock("job:short", LockOptions.builder().leaseTime(Duration.ofMillis(100)).fixedLease()
                        .build()).acquire(Duration.ZERO);
            } finally {
                MDC.remove("traceId");
            }
            await().atMost(Duration.ofSeconds(3)).until(() -> output.toString().contains("lock 'job:short' lost"));
            assertThat(lease.isHeld()).isFalse();
            // Logged on the client's renewal thread, where the MDC had no trace id of its own.
            assertThat(output.toString()).containsPattern("INFO .*\\[locksmith-leases-[^]]*\\].*traceId=trace-loss-1 - lock "
                    + "'job:short' lost after \\d+ ms \\(EXPIRED\\)");
            // The loss goes to each listener in turn: the meter may be counted just after the line is logged.
            MeterRegistry meters = context.getBean(MeterRegistry.class);
            await().atMost(Duration.ofSeconds(3)).until(() -> {
                var lost = meters.find(LockMetrics.LOST).tags("reason", "expired", "group", "job").counter();
                return lost != null && lost.count() >= 1;
            });
            assertThat(meters.get(LockMetrics.LOST).tags("reason", "expired", "group", "job").counter().count())
                    .isEqualTo(1);
            lease.close();
        });
    }

    @Test
    void metricsAndHealthCanBeSwitchedOffOneByOne() {
        runner.withUserConfiguration(Registry.class)
                .withPropertyValues(memUri(), "locksmith.metrics.enabled=false", "management.health.locksmith.enabled=false")
                .run(context -> {
                    assertThat(context).hasSingleBean(LockClient.class);
                    assertThat(context).doesNotHaveBean(LockMetrics.class);
                    assertThat(context).doesNotHaveBean(LocksmithHealthIndicator.class);
                });
    }

    @Test
    void configurationMetadataDescribesThePropertiesForIdes() throws Exception {
        String metadata;
        try (var in = getClass().getResourceAsStream("/META-INF/spring-configuration-metadata.json")) {
            assertThat(in).as("generated by spring-boot-configuration-processor").isNotNull();
            metadata = new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        }
        java.util.List<String> properties = com.jayway.jsonpath.JsonPath.read(metadata, "$.properties[*].name");
        assertThat(properties).contains("locksmith.uri", "locksmith.lease", "locksmith.max-hold", "locksmith.renew",
                "locksmith.on-loss", "locksmith.annotation.default-wait", "locksmith.metrics.max-name-groups");
        for (String[] expected : new String[][] {{"locksmith.lease", "30s"}, {"locksmith.renew", "true"},
                {"locksmith.max-hold", "10m"}, {"locksmith.on-loss", "notify"}, {"locksmith.max-poll-interval", "1s"},
                {"locksmith.annotation.order", "2147482647"}, {"locksmith.annotation.default-wait", "3s"},
                {"locksmith.startup", "fail"}, {"locksmith.annotation.on-failure", "throw"},
                {"locksmith.web.lock-timeout-status", "409"}}) {
            java.util.List<Object> defaults = com.jayway.jsonpath.JsonPath.read(metadata,
                    "$.properties[?(@.name == '" + expected[0] + "')].defaultValue");
            assertThat(defaults).as("default of %s shown by IDEs", expected[0]).singleElement()
                    .satisfies(value -> assertThat(value.toString().toLowerCase(java.util.Locale.ROOT))
                            .isEqualTo(expected[1]));
        }
        assertThat(LockedMethodAdvisor.DEFAULT_ORDER).isEqualTo(2147482647);
        java.util.List<String> uriHints = com.jayway.jsonpath.JsonPath.read(metadata,
                "$.hints[?(@.name == 'locksmith.uri')].values[*].value");
        assertThat(uriHints).contains("mem://", "redis://127.0.0.1:6379", "etcd://127.0.0.1:2379");
    }

    @Test
    void noMetricsWithoutARegistry() {
        runner.withPropertyValues(memUri()).run(context -> assertThat(context).doesNotHaveBean(LockMetrics.class));
    }

    @Configuration(proxyBeanMethods = false)
    static class OwnClient {
        @Bean
        LockClient myLockClient() {
            return LockClient.builder().uri("mem://own-" + UUID.randomUUID()).clientId("own-client").build();
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class Registry {
        @Bean
        MeterRegistry meterRegistry() {
            return new SimpleMeterRegistry();
        }
    }
}
