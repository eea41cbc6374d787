package io.locksmith.spring;

import io.locksmith.LockClient;
import io.locksmith.LockInfo;
import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;

import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * Actuator health of the lock store: UP when the store answers an {@code inspect} of a probe lock name (nobody
 * needs to hold it), with the round-trip time; DOWN with the error otherwise. Details: {@code store} (the URI
 * without credentials), {@code roundTripMs}, {@code clientId}, {@code heldLocks}, {@code capabilities}.
 */
public final class LocksmithHealthIndicator extends AbstractHealthIndicator {

    private final LockClient client;
    private final String probeName;

    /**
     * @param probeName the lock name to inspect
     */
    public LocksmithHealthIndicator(LockClient client, String probeName) {
        super("lock store health check failed");
        this.client = client;
        this.probeName = probeName;
    }

    @Override
    protected void doHealthCheck(Health.Builder builder) {
        builder.withDetail("store", client.describe()).withDetail("clientId", client.clientId());
        long start = System.nanoTime();
        Optional<LockInfo> probe = client.inspect(probeName);
        long micros = TimeUnit.NANOSECONDS.toMicros(System.nanoTime() - start);
        builder.up()
                .withDetail("roundTripMs", micros / 1000.0)
                .withDetail("probe", probeName + (probe.isPresent() ? " (held)" : " (free)"))
                .withDetail("heldLocks", client.heldCount())
                .withDetail("capabilities", client.capabilities().toString());
    }
}
