package io.locksmith.spring;

import io.locksmith.Lease;
import io.locksmith.LockClient;
import io.locksmith.LockConfigurationException;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import java.time.Duration;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

/** A store whose tokens are below what the resource accepted fails the startup instead of every write. */
class FencingFloorCheckTest {

    private final String store = "mem://fencing-" + UUID.randomUUID();
    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(LocksmithAutoConfiguration.class))
            .withPropertyValues("locksmith.uri=" + store);

    @Test
    void tokensBelowTheResourcesFloorFailTheStartupPointingToTheMigration() {
        // The resource kept the last Redis token; the application now runs on a store with small tokens.
        runner.withBean(FencingTokenFloor.class, () -> () -> 1_790_000_000_000_000L).run(context ->
                assertThat(context).getFailure().isInstanceOf(LockConfigurationException.class)
                        .hasMessageContaining("not above the highest token the resource has accepted (1790000000000000)")
                        .hasMessageContaining("migrate:").hasMessageContaining("MIGRATION.md"));
    }

    @Test
    void tokensAboveTheFloorStartAndLaterTokensStayAbove() {
        long floor;
        try (LockClient earlier = LockClient.open(store); Lease lease = earlier.lock("stock:A").acquire()) {
            floor = lease.fencingToken();
        }
        runner.withBean(FencingTokenFloor.class, () -> () -> floor).run(context -> {
            assertThat(context).hasNotFailed();
            try (Lease lease = context.getBean(LockClient.class).lock("stock:A").acquire(Duration.ofSeconds(1))) {
                assertThat(lease.fencingToken()).isGreaterThan(floor);
            }
        });
        runner.run(context -> assertThat(context).hasNotFailed());
    }
}
