package io.locksmith.spring;

import io.locksmith.LockClient;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.annotation.Bean;

/**
 * The {@code locksmith} health indicator, when Spring Boot's health support (actuator) is on the class path and
 * a {@link LockClient} exists; {@code management.health.locksmith.enabled=false} switches it off.
 */
@AutoConfiguration(after = LocksmithAutoConfiguration.class)
@ConditionalOnClass(HealthIndicator.class)
@ConditionalOnBean(LockClient.class)
@ConditionalOnEnabledHealthIndicator("locksmith")
public class LocksmithHealthAutoConfiguration {

    /** Inspects {@code locksmith.health.probe-name} and reports the round-trip time. */
    @Bean
    @ConditionalOnMissingBean(name = "locksmithHealthIndicator")
    public LocksmithHealthIndicator locksmithHealthIndicator(LockClient client, LocksmithProperties properties) {
        return new LocksmithHealthIndicator(client, properties.getHealth().getProbeName());
    }
}
