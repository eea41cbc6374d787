package io.locksmith.spring;

import io.locksmith.LockClient;
import io.locksmith.micrometer.LockMetrics;
import io.locksmith.micrometer.NameGroups;
import io.micrometer.core.instrument.MeterRegistry;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * Registers {@link LockMetrics} (a {@link io.locksmith.LockListener}, so the auto-configured client feeds it) and
 * the held-locks gauge when a Micrometer {@link MeterRegistry} exists (actuator brings one). An application that
 * builds its own {@code LockClient} passes the {@code LockMetrics} bean to {@code LockClient.builder().listener(..)}.
 */
@AutoConfiguration(afterName = {
        "org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration",
        "org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration",
        "org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration"})
@ConditionalOnClass({MeterRegistry.class, LockMetrics.class})
@ConditionalOnBean(MeterRegistry.class)
@ConditionalOnBooleanProperty(name = {"locksmith.enabled", "locksmith.metrics.enabled"}, matchIfMissing = true)
public class LocksmithMetricsAutoConfiguration {

    /** The meters, tagged by store and by a bounded group of the lock name. */
    @Bean
    @ConditionalOnMissingBean
    public LockMetrics lockMetrics(MeterRegistry registry, LocksmithProperties properties) {
        LocksmithProperties.Metrics metrics = properties.getMetrics();
        return LockMetrics.builder(registry)
                .nameGroups(NameGroups.byPrefix(metrics.getNameGroupSeparator(), metrics.getMaxNameGroups()))
                .build();
    }

    /** Registers the {@value LockMetrics#HELD} gauge once every singleton, the client among them, exists. */
    @Bean
    public SmartInitializingSingleton lockClientHeldLocksGauge(LockMetrics metrics, ObjectProvider<LockClient> clients) {
        return () -> clients.orderedStream().forEach(metrics::monitorHeldLocks);
    }
}
