package io.locksmith.spring;

import io.locksmith.LockClient;
import io.locksmith.LockConfigurationException;
import io.locksmith.LockListener;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.context.annotation.Role;
import org.springframework.core.env.Environment;
import org.springframework.util.function.SingletonSupplier;

import java.time.Duration;
import java.util.concurrent.Executor;
import java.util.concurrent.ForkJoinPool;

/**
 * Auto-configures a {@link LockClient} from the {@code locksmith.*} properties (closed on shutdown; without
 * {@code locksmith.uri}, on the application's Spring Data Redis configuration when there is one), the
 * {@link Locked @Locked} advisor and the lock event log. Backs off when the application defines its own
 * {@code LockClient}; switched off entirely by {@code locksmith.enabled=false}.
 */
@AutoConfiguration
@ConditionalOnBooleanProperty(name = "locksmith.enabled", matchIfMissing = true)
@EnableConfigurationProperties(LocksmithProperties.class)
public class LocksmithAutoConfiguration {

    /**
     * The client, with every {@link LockListener} bean registered (the metrics and the event log among them) and
     * every {@link LockClientBuilderCustomizer} applied.
     */
    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean
    public LockClient lockClient(LocksmithProperties properties, ObjectProvider<LockListener> listeners,
                                 ObjectProvider<LockClientBuilderCustomizer> customizers, Environment environment,
                                 org.springframework.beans.factory.config.ConfigurableListableBeanFactory beanFactory) {
        String uri = LockClientFactory.storeUri(properties, environment, beanFactory.getBeanClassLoader());
        return LockClientFactory.create(properties, uri, listeners.orderedStream().toList(),
                customizers.orderedStream().toList());
    }

    /** Runs code under a lock without an annotation: {@code executeWithLock(name, wait, () -> ...)}. */
    @Bean
    @ConditionalOnMissingBean
    public LockTemplate lockTemplate(LockClient lockClient) {
        return new LockTemplate(lockClient);
    }

    /** With a {@link FencingTokenFloor} bean: fails the startup if the store's tokens are not above it. */
    @Bean
    static SmartInitializingSingleton locksmithFencingFloorCheck(ObjectProvider<LockClient> lockClient,
                                                                 ObjectProvider<FencingTokenFloor> floors) {
        return new FencingFloorCheck(lockClient, floors);
    }

    /** The SLF4J lock event log (logger {@value LockEventLogger#LOGGER}). */
    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnBooleanProperty(name = "locksmith.logging.enabled", matchIfMissing = true)
    public LockEventLogger lockEventLogger() {
        return new LockEventLogger();
    }

    /** Spring Boot's task executor bean (TaskExecutionAutoConfiguration.APPLICATION_TASK_EXECUTOR_BEAN_NAME). */
    private static final String APPLICATION_TASK_EXECUTOR = "applicationTaskExecutor";

    /** The {@link Locked @Locked} support. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnBooleanProperty(name = "locksmith.annotation.enabled", matchIfMissing = true)
    @Import(LocksmithAutoProxyRegistrar.class)
    static class LockedAnnotationConfiguration {

        // Static and lazy in what it uses: advisors are instantiated early, before the client and the properties.
        @Bean
        @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
        @ConditionalOnMissingBean
        static LockedMethodAdvisor lockedMethodAdvisor(ObjectProvider<LockClient> client,
                                                       ObjectProvider<LocksmithProperties> properties,
                                                       Environment environment, BeanFactory beanFactory) {
            int order = environment.getProperty("locksmith.annotation.order", Integer.class,
                    LockedMethodAdvisor.DEFAULT_ORDER);
            return new LockedMethodAdvisor(client, () -> defaultWait(properties), beanFactory,
                    environment::resolveRequiredPlaceholders, failureDefaults(environment), order,
                    SingletonSupplier.of(() -> asyncExecutor(beanFactory)));
        }

        /** The {@link LeaderOnly @LeaderOnly} support: its elections, joined at start and left at stop. */
        @Bean
        @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
        @ConditionalOnMissingBean
        static LeaderOnlyAdvisor leaderOnlyAdvisor(ObjectProvider<LockClient> client, Environment environment) {
            int order = environment.getProperty("locksmith.annotation.order", Integer.class,
                    LockedMethodAdvisor.DEFAULT_ORDER);
            return new LeaderOnlyAdvisor(new LeaderOnlyCandidates(client), environment::resolveRequiredPlaceholders,
                    order);
        }

        /** Joins the elections of the {@code @LeaderOnly} methods when the application starts; leaves at stop. */
        @Bean
        static org.springframework.context.SmartLifecycle leaderOnlyCandidates(LeaderOnlyAdvisor advisor) {
            return advisor.candidates();
        }

        /**
         * Where a {@code CompletionStage} method runs once its lock is granted: the application's task executor (Spring
         * Boot's {@code applicationTaskExecutor}), else CompletableFuture's default pool. Never the lock client's
         * threads, which the method might block.
         */
        private static Executor asyncExecutor(BeanFactory beanFactory) {
            if (beanFactory.containsBean(APPLICATION_TASK_EXECUTOR)
                    && beanFactory.isTypeMatch(APPLICATION_TASK_EXECUTOR, Executor.class)) {
                return beanFactory.getBean(APPLICATION_TASK_EXECUTOR, Executor.class);
            }
            return ForkJoinPool.commonPool();
        }

        /** Once every singleton (and so every proxy) exists: each failure handler a @Locked method names is a bean. */
        @Bean
        static SmartInitializingSingleton lockFailureHandlersCheck(ObjectProvider<LockedMethodAdvisor> advisor,
                                                                   ListableBeanFactory beanFactory) {
            return () -> advisor.ifAvailable(found -> found.methods().found().forEach(method -> {
                String handler = method.failureHandler();
                if (handler != null && !(beanFactory.containsBean(handler)
                        && beanFactory.isTypeMatch(handler, LockFailureHandler.class))) {
                    throw new LockConfigurationException("@Locked on " + method.method().getDeclaringClass().getName()
                            + "." + method.method().getName() + ": failure handler '" + handler + "' is not a bean"
                            + " implementing LockFailureHandler" + (beanFactory.containsBean(handler)
                            ? " (a bean of that name exists, of type " + beanFactory.getType(handler) + ")" : "")
                            + "; LockFailureHandler beans: "
                            + java.util.List.of(beanFactory.getBeanNamesForType(LockFailureHandler.class)));
                }
            }));
        }

        // Read from the Environment, not LocksmithProperties: the advisor is created before properties are bound.
        private static LockedMethod.FailureDefaults failureDefaults(Environment environment) {
            Binder binder = Binder.get(environment);
            Locked.OnFailure onFailure = binder.bind("locksmith.annotation.on-failure", Locked.OnFailure.class)
                    .orElse(Locked.OnFailure.THROW);
            String handler = binder.bind("locksmith.annotation.failure-handler", String.class)
                    .map(String::strip).orElse("");
            handler = handler.isEmpty() ? null : handler;
            if (handler != null && onFailure != Locked.OnFailure.THROW) {
                throw new LockConfigurationException("locksmith.annotation.on-failure (" + onFailure + ") and"
                        + " locksmith.annotation.failure-handler (" + handler + ") are both set; choose one");
            }
            return new LockedMethod.FailureDefaults(onFailure == Locked.OnFailure.DEFAULT ? Locked.OnFailure.THROW
                    : onFailure, handler);
        }

        private static Duration defaultWait(ObjectProvider<LocksmithProperties> properties) {
            LocksmithProperties bound = properties.getIfAvailable();
            Duration wait = bound == null ? null : bound.getAnnotation().getDefaultWait();
            return wait == null || wait.isNegative() ? Duration.ofSeconds(3) : wait;
        }
    }
}
