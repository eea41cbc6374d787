package io.locksmith.spring;

import io.locksmith.LockConfigurationException;
import org.junit.jupiter.api.Test;
import org.reactivestreams.Publisher;
import org.reactivestreams.Subscriber;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.ParallelFlux;

import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Flow;
import java.util.concurrent.FutureTask;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Which return types {@code @Locked} accepts: those whose asynchronous work the lock is held for, and types that are
 * not asynchronous; every other asynchronous type fails the startup, found anywhere in the type's hierarchy. The old
 * check looked only at the interfaces a return type implements directly, so Mono (a Publisher through CorePublisher)
 * started and ran unlocked; ParallelFlux, a Publisher the same way, still would.
 */
class LockedReturnTypeCheckTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(LocksmithAutoConfiguration.class))
            .withPropertyValues("locksmith.uri=mem://types-" + UUID.randomUUID());

    static class Supported {
        @Locked(name = "'a'")
        public CompletableFuture<String> future() {
            return CompletableFuture.completedFuture("a");
        }

        @Locked(name = "'b'")
        public CompletionStage<String> stage() {
            return CompletableFuture.completedFuture("b");
        }

        @Locked(name = "'c'")
        public Mono<String> mono() {
            return Mono.just("c");
        }

        @Locked(name = "'d'")
        public Flux<String> flux() {
            return Flux.just("d");
        }

        @Locked(name = "'e'")
        public Optional<String> plain() {
            return Optional.of("e");
        }
    }

    static class ReturnsParallelFlux {
        @Locked(name = "'x'")
        public ParallelFlux<String> work() {
            return Flux.just("x").parallel();
        }
    }

    /** A Publisher only through an interface of an interface of a superclass. */
    interface Stream<T> extends Publisher<T> {
    }

    abstract static class BaseStream<T> implements Stream<T> {
    }

    static final class RowStream extends BaseStream<String> {
        @Override
        public void subscribe(Subscriber<? super String> subscriber) {
        }
    }

    static class ReturnsCustomPublisher {
        @Locked(name = "'x'")
        public RowStream rows() {
            return new RowStream();
        }
    }

    static class ReturnsFutureTask {
        @Locked(name = "'x'")
        public FutureTask<String> task() {
            return new FutureTask<>(() -> "x");
        }
    }

    static class ReturnsFlowPublisher {
        @Locked(name = "'x'")
        public Flow.Publisher<String> rows() {
            return subscriber -> { };
        }
    }

    /** A subclass of CompletableFuture: the lock could be held, but the call could not return that type. */
    static final class OrderFuture extends CompletableFuture<String> {
    }

    static class ReturnsFutureSubclass {
        @Locked(name = "'x'")
        public OrderFuture order() {
            return new OrderFuture();
        }
    }

    @Test
    void completableFutureCompletionStageMonoFluxAndPlainTypesAreAccepted() {
        runner.withBean(Supported.class).run(context -> {
            assertThat(context).hasNotFailed();
            Supported bean = context.getBean(Supported.class);
            assertThat(bean.future().join()).isEqualTo("a");
            assertThat(bean.stage().toCompletableFuture().join()).isEqualTo("b");
            assertThat(bean.mono().block()).isEqualTo("c");
            assertThat(bean.flux().collectList().block()).containsExactly("d");
            assertThat(bean.plain()).contains("e");
        });
    }

    @Test
    void everyOtherAsynchronousTypeFailsTheStartupWhereverItIsInTheHierarchy() {
        refused(ReturnsParallelFlux.class, "ReturnsParallelFlux.work", "reactor.core.publisher.ParallelFlux",
                "org.reactivestreams.Publisher");
        refused(ReturnsCustomPublisher.class, "ReturnsCustomPublisher.rows", "RowStream",
                "org.reactivestreams.Publisher");
        refused(ReturnsFutureTask.class, "ReturnsFutureTask.task", "java.util.concurrent.FutureTask",
                "java.util.concurrent.Future");
        refused(ReturnsFlowPublisher.class, "ReturnsFlowPublisher.rows", "java.util.concurrent.Flow$Publisher");
        refused(ReturnsFutureSubclass.class, "ReturnsFutureSubclass.order", "OrderFuture",
                "java.util.concurrent.Future");
    }

    private void refused(Class<?> bean, String... messageParts) {
        runner.withBean(bean).run(context -> {
            assertThat(context).hasFailed();
            assertThat(context).getFailure().rootCause().isInstanceOf(LockConfigurationException.class)
                    .hasMessageContaining("CompletableFuture, CompletionStage, Mono or Flux");
            for (String part : messageParts) {
                assertThat(context).getFailure().rootCause().hasMessageContaining(part);
            }
        });
    }
}
