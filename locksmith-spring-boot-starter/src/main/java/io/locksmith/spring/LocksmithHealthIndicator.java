package io.locksmith.spring;

import io.locksmith.LockClient;
import io.locksmith.LockInfo;
import io.locksmith.LockStoreException;
import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * Actuator health of the lock store: UP when the store answers an {@code inspect} of a probe lock name (nobody
 * needs to hold it) within one second, with the round-trip time; DOWN with the error otherwise, at once if the
 * client knows the store to be unreachable. Details: {@code store} (the URI
 * without credentials), {@code roundTripMs}, {@code clientId}, {@code heldLocks}, {@code capabilities}.
 */
public final class LocksmithHealthIndicator extends AbstractHealthIndicator {

    /**
     * How long the probe may take, whatever the store's command time-out: an actuator answer must not wait for a
     * dead store's time-outs (5 s on etcd and PostgreSQL by default). A store the client knows to be unreachable
     * answers DOWN at once.
     */
    static final Duration PROBE_TIMEOUT = Duration.ofSeconds(1);

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
        Optional<LockInfo> probe;
        try {
            probe = client.inspect(probeName, PROBE_TIMEOUT);
        } catch (LockStoreException e) {
            // An expected state (a store outage, a lazy start): DOWN with the message, without a stack trace in the
            // log on every probe.
            builder.down().withDetail("error", e.getClass().getName() + ": " + e.getMessage());
            return;
        }
        long micros = TimeUnit.NANOSECONDS.toMicros(System.nanoTime() - start);
        builder.up()
                .withDetail("roundTripMs", micros / 1000.0)
                .withDetail("probe", probeName + (probe.isPresent() ? " (held)" : " (free)"))
                .withDetail("heldLocks", client.heldCount())
                .withDetail("capabilities", client.capabilities().toString());
    }
}
