package io.locksmith.spring;

import io.locksmith.Lease;
import io.locksmith.LockClient;
import io.locksmith.tck.server.ServerProcess;
import io.locksmith.tck.server.StoreServers;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import java.time.Duration;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

/** The {@code locks} actuator endpoint on a real redis-server: every holder's locks, this instance's with their age. */
class LocksEndpointTest {

    private static ServerProcess redis;

    @BeforeAll
    static void startRedis() {
        redis = StoreServers.redis();
    }

    @AfterAll
    static void stopRedis() {
        redis.close();
    }

    private static ApplicationContextRunner runner() {
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(LocksmithAutoConfiguration.class,
                        LocksmithLocksEndpointAutoConfiguration.class))
                .withPropertyValues("locksmith.uri=redis://127.0.0.1:" + redis.port(),
                        "management.endpoints.web.exposure.include=health,locks");
    }

    @Test
    void listsTheHeldLocksOfEveryHolderWithTokenRemainingLeaseAndTheAgeOfThisInstancesOwn() {
        String prefix = "endpoint-" + UUID.randomUUID() + ":";
        runner().run(context -> {
            LockClient mine = context.getBean(LockClient.class);
            try (LockClient other = LockClient.open("redis://127.0.0.1:" + redis.port());
                 Lease held = mine.lock(prefix + "1").acquire(Duration.ofSeconds(5));
                 Lease theirs = other.lock(prefix + "2").acquire(Duration.ofSeconds(5))) {
                LocksEndpoint.HeldLocks answer = context.getBean(LocksEndpoint.class).locks(prefix);

                assertThat(answer.error()).isNull();
                assertThat(answer.clientId()).isEqualTo(mine.clientId());
                assertThat(answer.store()).startsWith("redis://127.0.0.1:" + redis.port());
                assertThat(answer.locks()).extracting(LocksEndpoint.HeldLock::name)
                        .containsExactly(prefix + "1", prefix + "2");

                LocksEndpoint.HeldLock first = answer.locks().get(0);
                assertThat(first.heldByThisInstance()).isTrue();
                assertThat(first.holder().clientId()).isEqualTo(mine.clientId());
                assertThat(first.holder().thread()).isEqualTo(Thread.currentThread().getName());
                assertThat(first.fencingToken()).isEqualTo(held.fencingToken());
                assertThat(first.ageMillis()).isNotNull().isNotNegative();
                assertThat(first.remainingMillis()).isNotNull().isPositive();

                LocksEndpoint.HeldLock second = answer.locks().get(1);
                assertThat(second.heldByThisInstance()).isFalse();
                assertThat(second.holder().clientId()).isEqualTo(other.clientId());
                assertThat(second.fencingToken()).isEqualTo(theirs.fencingToken());
                assertThat(second.ageMillis()).as("the store does not say when another holder took it")
                        .isNull();
                assertThat(second.remainingMillis()).isNotNull().isPositive();
            }
            assertThat(context.getBean(LocksEndpoint.class).locks(prefix).locks()).isEmpty();
        });
    }

    @Test
    void registeredOnlyWithActuatorAndWhenExposed() {
        runner().withClassLoader(new FilteredClassLoader(Endpoint.class))
                .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(LocksEndpoint.class));
        runner().withPropertyValues("management.endpoints.web.exposure.include=health")
                .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(LocksEndpoint.class));
    }
}
