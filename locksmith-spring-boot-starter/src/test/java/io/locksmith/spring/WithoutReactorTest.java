package io.locksmith.spring;

import io.locksmith.LockClient;
import io.locksmith.LockConfigurationException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Flow;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The starter in an application without Reactor, locksmith-reactor or Kotlin: blocking and CompletableFuture methods
 * work, and the return type check still refuses asynchronous types. Run by the surefire execution
 * {@code without-reactor-and-kotlin}, whose class path lacks those jars (the class would otherwise prove nothing).
 */
@EnabledIfSystemProperty(named = "locksmith.test.without-reactor", matches = "true",
        disabledReason = "runs only in the surefire execution without Reactor and Kotlin on the class path")
class WithoutReactorTest {

    static class Service {
        @Locked(name = "'sync'")
        public String sync() {
            return LockContext.currentLease().lockName();
        }

        @Locked(name = "'async'")
        public CompletableFuture<String> async() {
            return CompletableFuture.completedFuture(LockContext.currentLease().lockName());
        }
    }

    static class FlowService {
        @Locked(name = "'flow'")
        public Flow.Publisher<String> rows() {
            return subscriber -> { };
        }
    }

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(LocksmithAutoConfiguration.class,
                    LocksmithWebFluxAutoConfiguration.class))
            .withPropertyValues("locksmith.uri=mem://plain-" + UUID.randomUUID());

    @Test
    void reactorAndKotlinAreAbsentHere() {
        assertThatThrownBy(() -> Class.forName("reactor.core.publisher.Mono")).isInstanceOf(ClassNotFoundException.class);
        assertThatThrownBy(() -> Class.forName("io.locksmith.reactor.ReactiveLocks"))
                .isInstanceOf(ClassNotFoundException.class);
        assertThatThrownBy(() -> Class.forName("kotlin.Metadata")).isInstanceOf(ClassNotFoundException.class);
    }

    @Test
    void blockingAndCompletableFutureMethodsWork() {
        runner.withBean(Service.class).run(context -> {
            assertThat(context).hasNotFailed();
            Service service = context.getBean(Service.class);
            assertThat(service.sync()).isEqualTo("sync");
            assertThat(service.async().get(30, TimeUnit.SECONDS)).isEqualTo("async");
            assertThat(context.getBean(LockClient.class).heldCount()).isZero();
        });
    }

    @Test
    void asynchronousTypesAreStillRefused() {
        runner.withBean(FlowService.class).run(context -> assertThat(context).getFailure().rootCause()
                .isInstanceOf(LockConfigurationException.class).hasMessageContaining("FlowService.rows")
                .hasMessageContaining("java.util.concurrent.Flow$Publisher"));
    }
}
