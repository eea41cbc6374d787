package io.locksmith.spring;

import io.locksmith.spi.ProviderClientBuilder;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.availability.AvailabilityChangeEvent;
import org.springframework.boot.availability.LivenessState;
import org.springframework.boot.availability.ReadinessState;
import org.springframework.boot.autoconfigure.availability.ApplicationAvailabilityAutoConfiguration;
import org.springframework.boot.health.actuate.endpoint.HealthEndpoint;
import org.springframework.boot.health.autoconfigure.actuate.endpoint.AvailabilityProbesAutoConfiguration;
import org.springframework.boot.health.autoconfigure.actuate.endpoint.HealthEndpointAutoConfiguration;
import org.springframework.boot.health.autoconfigure.application.AvailabilityHealthContributorAutoConfiguration;
import org.springframework.boot.health.autoconfigure.contributor.HealthContributorAutoConfiguration;
import org.springframework.boot.health.autoconfigure.registry.HealthContributorRegistryAutoConfiguration;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import java.time.Duration;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The set-up SPRING.md recommends for Kubernetes probes: the {@code locksmith} indicator in the readiness group takes
 * the instance out of traffic while the store is unreachable and back when it answers; the liveness group stays UP
 * (restarting every instance would not bring the store back).
 */
class LocksmithReadinessTest {

    private final SwitchableStore store = new SwitchableStore();
    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(LocksmithAutoConfiguration.class,
                    LocksmithHealthAutoConfiguration.class, ApplicationAvailabilityAutoConfiguration.class,
                    HealthContributorAutoConfiguration.class, HealthContributorRegistryAutoConfiguration.class,
                    HealthEndpointAutoConfiguration.class, AvailabilityHealthContributorAutoConfiguration.class,
                    AvailabilityProbesAutoConfiguration.class))
            .withBean(LockClientBuilderCustomizer.class, () -> builder -> ProviderClientBuilder.of(builder).factory(store))
            .withPropertyValues("locksmith.uri=mem://readiness-" + UUID.randomUUID(),
                    "management.endpoint.health.probes.enabled=true",
                    "management.endpoint.health.group.readiness.include=readinessState,locksmith");

    @Test
    void readinessGoesDownWhileTheStoreIsUnreachableAndLivenessStaysUp() {
        runner.run(context -> {
            // What SpringApplication announces once the application has started.
            AvailabilityChangeEvent.publish(context, LivenessState.CORRECT);
            AvailabilityChangeEvent.publish(context, ReadinessState.ACCEPTING_TRAFFIC);
            HealthEndpoint health = context.getBean(HealthEndpoint.class);
            assertThat(health.healthForPath("readiness").getStatus()).isEqualTo(Status.UP);

            store.down();
            assertThat(health.healthForPath("readiness").getStatus()).isEqualTo(Status.DOWN);
            assertThat(health.healthForPath("liveness").getStatus()).isEqualTo(Status.UP);

            store.up();
            await().atMost(Duration.ofSeconds(10))
                    .until(() -> health.healthForPath("readiness").getStatus().equals(Status.UP));
            assertThat(health.healthForPath("liveness").getStatus()).isEqualTo(Status.UP);
        });
    }
}
