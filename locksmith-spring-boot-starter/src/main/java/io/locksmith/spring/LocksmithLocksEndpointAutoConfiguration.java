package io.locksmith.spring;

import io.locksmith.LockClient;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * The {@code locks} actuator endpoint ({@link LocksEndpoint}), when actuator is on the class path, a
 * {@link LockClient} exists and the endpoint is available (enabled and exposed, as for every actuator endpoint).
 */
@AutoConfiguration(after = LocksmithAutoConfiguration.class)
@ConditionalOnClass({Endpoint.class, ConditionalOnAvailableEndpoint.class})
@ConditionalOnBean(LockClient.class)
@ConditionalOnAvailableEndpoint(LocksEndpoint.class)
public class LocksmithLocksEndpointAutoConfiguration {

    /** The ages of this instance's locks, fed by the client's events. */
    @Bean
    LockAges locksmithLockAges() {
        return new LockAges();
    }

    /** Lists the store's held locks. */
    @Bean
    @ConditionalOnMissingBean
    public LocksEndpoint locksEndpoint(LockClient client, LockAges ages) {
        return new LocksEndpoint(client, ages);
    }
}
