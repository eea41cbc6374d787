package io.locksmith.spring;

import io.locksmith.DistributedLock;
import io.locksmith.LeaderElection;
import io.locksmith.DistributedSemaphore;
import io.locksmith.DistributedReadWriteLock;
import io.locksmith.LockClient;
import io.locksmith.LockConfigurationException;
import io.locksmith.LockInfo;
import io.locksmith.LockOptions;
import io.locksmith.LockStoreException;
import io.locksmith.Capability;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * The client of {@code locksmith.startup=lazy}: the application starts while the store does not answer, a
 * background thread keeps opening the real client (backoff from 100 ms to 5 s), and until it succeeds every call
 * that needs the store fails at once with a {@link LockStoreException} (so the health indicator is DOWN and
 * {@code @Locked} calls answer 503). Once open, every call goes to the real client.
 * <p>A configuration error (bad URI, unknown scheme or parameter) is not retried: found in the first attempt, it
 * fails the startup as with {@code locksmith.startup=fail}.
 */
final class LazyLockClient implements LockClient {

    private static final Logger LOG = LoggerFactory.getLogger(LazyLockClient.class);
    private static final Duration FIRST_BACKOFF = Duration.ofMillis(100);
    private static final Duration MAX_BACKOFF = Duration.ofSeconds(5);

    private final Supplier<LockClient> opener;
    private final String store;
    private final String clientId;
    private final CountDownLatch firstAttempt = new CountDownLatch(1);
    private final Thread connector;
    private volatile LockClient delegate;
    private volatile RuntimeException lastFailure;
    private volatile boolean closed;

    private LazyLockClient(Supplier<LockClient> opener, String store, String clientId) {
        this.opener = opener;
        this.store = store;
        this.clientId = clientId;
        this.connector = new Thread(this::connect, "locksmith-lazy-connect");
        this.connector.setDaemon(true);
    }

    /**
     * Starts opening the client in the background and waits up to {@code firstAttemptWait} for the first attempt, so
     * that a reachable store is used at once and a configuration error fails the startup.
     *
     * @param opener   opens the real client (the builder's {@code build()})
     * @param store    the store URI without credentials, for messages
     * @param clientId the id the real client is built with
     * @throws LockConfigurationException if the first attempt found the configuration wrong
     */
    static LazyLockClient open(Supplier<LockClient> opener, String store, String clientId, Duration firstAttemptWait) {
        LazyLockClient client = new LazyLockClient(opener, store, clientId);
        client.connector.start();
        try {
            client.firstAttempt.await(firstAttemptWait.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (client.lastFailure instanceof LockConfigurationException wrong) {
            client.close();
            throw wrong;
        }
        return client;
    }

    /** Whether the real client is open. */
    boolean isConnected() {
        return delegate != null;
    }

    private void connect() {
        Duration backoff = FIRST_BACKOFF;
        int attempts = 0;
        while (!closed) {
            attempts++;
            try {
                LockClient opened = opener.get();
                synchronized (this) {
                    if (closed) {
                        opened.close();
                        return;
                    }
                    delegate = opened;
                }
                if (attempts > 1) {
                    LOG.info("Locksmith lock client {} connected to {} after {} attempts; locking works now", clientId,
                            opened.describe(), attempts);
                }
                return;
            } catch (LockConfigurationException wrong) {
                lastFailure = wrong;
                LOG.error("Locksmith lock client {} cannot be opened, and retrying will not help: {}", clientId,
                        wrong.getMessage());
                return;
            } catch (RuntimeException failed) {
                lastFailure = failed;
                if (attempts == 1) {
                    LOG.warn("Locksmith lock store {} does not answer (locksmith.startup=lazy): {}; the application"
                            + " starts, health is DOWN and lock calls fail until it answers", store, failed.getMessage());
                } else {
                    LOG.debug("Locksmith lock store {} still does not answer (attempt {}): {}", store, attempts,
                            failed.getMessage());
                }
            } finally {
                firstAttempt.countDown();
            }
            try {
                Thread.sleep(backoff.toMillis());
            } catch (InterruptedException e) {
                return;
            }
            backoff = backoff.multipliedBy(2).compareTo(MAX_BACKOFF) > 0 ? MAX_BACKOFF : backoff.multipliedBy(2);
        }
    }

    private LockClient connected(String lockName) {
        LockClient client = delegate;
        if (client != null) {
            return client;
        }
        if (closed) {
            throw new IllegalStateException("lock client " + clientId + " on " + store + " is closed");
        }
        RuntimeException failure = lastFailure;
        String message = "lock store " + store + " has not answered since the application started"
                + " (locksmith.startup=lazy)" + (failure == null ? "" : ": " + failure.getMessage());
        throw lockName == null ? new LockStoreException(message, failure) : new LockStoreException(lockName, message, failure);
    }

    @Override
    public DistributedLock lock(String name) {
        return connected(name).lock(name);
    }

    @Override
    public DistributedLock lock(String name, LockOptions options) {
        return connected(name).lock(name, options);
    }

    @Override
    public DistributedSemaphore semaphore(String name, int permits) {
        return connected(name).semaphore(name, permits);
    }

    @Override
    public DistributedSemaphore semaphore(String name, int permits, LockOptions options) {
        return connected(name).semaphore(name, permits, options);
    }

    @Override
    public DistributedReadWriteLock readWriteLock(String name) {
        return connected(name).readWriteLock(name);
    }

    @Override
    public DistributedReadWriteLock readWriteLock(String name, LockOptions options, int maxReaders) {
        return connected(name).readWriteLock(name, options, maxReaders);
    }

    @Override
    public LeaderElection election(String name) {
        return connected(name).election(name);
    }

    @Override
    public LeaderElection election(String name, LockOptions options) {
        return connected(name).election(name, options);
    }

    @Override
    public Optional<LockInfo> inspect(String name) {
        return connected(name).inspect(name);
    }

    @Override
    public Optional<LockInfo> inspect(String name, Duration timeout) {
        return connected(name).inspect(name, timeout);
    }

    @Override
    public List<LockInfo> list(String prefix, Duration timeout) {
        return connected(prefix).list(prefix, timeout);
    }

    @Override
    public String clientId() {
        LockClient client = delegate;
        return client != null ? client.clientId() : clientId;
    }

    @Override
    public String describe() {
        LockClient client = delegate;
        return client != null ? client.describe() : store + " (not connected yet)";
    }

    @Override
    public Set<Capability> capabilities() {
        return connected(null).capabilities();
    }

    @Override
    public java.time.Duration minimumLeaseTime() {
        return connected(null).minimumLeaseTime();
    }

    @Override
    public int heldCount() {
        LockClient client = delegate;
        return client == null ? 0 : client.heldCount();
    }

    @Override
    public void close() {
        LockClient client;
        synchronized (this) {
            closed = true;
            client = delegate;
        }
        connector.interrupt();
        if (client != null) {
            client.close();
        }
    }

    @Override
    public String toString() {
        return "LazyLockClient[" + describe() + "]";
    }
}
