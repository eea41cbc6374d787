package io.locksmith.spring;

import io.locksmith.LockClient;
import io.locksmith.LockStoreException;
import io.locksmith.spi.ProviderClientBuilder;
import org.junit.jupiter.api.Test;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * Health during a store outage the client knows of (SPEC R9.14): DOWN at once with the store's error, without a
 * store call; UP again once the client's probe has seen the store answer.
 */
class LocksmithHealthOutageTest {

    @Test
    void healthIsDownAtOnceDuringAKnownOutageAndUpWhenTheStoreIsBack() {
        SwitchableStore store = new SwitchableStore();
        try (LockClient client = ProviderClientBuilder.create().uri("mem://health-outage").factory(store).build()) {
            LocksmithHealthIndicator indicator = new LocksmithHealthIndicator(client, "probe");
            assertThat(indicator.health().getStatus()).isEqualTo(Status.UP);

            store.down();
            assertThatThrownBy(() -> client.lock("job").tryAcquire()).isInstanceOf(LockStoreException.class);
            Health health = indicator.health();
            assertThat(health.getStatus()).isEqualTo(Status.DOWN);
            assertThat(health.getDetails().get("error").toString()).contains("unreachable since");

            store.up();
            await().atMost(Duration.ofSeconds(5)).until(() -> indicator.health().getStatus().equals(Status.UP));
        }
    }
}
