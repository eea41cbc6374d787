package io.locksmith.bench;

import io.locksmith.Lease;
import io.locksmith.LeaderElection;
import io.locksmith.LockClient;

import io.locksmith.tck.fault.TcpProxy;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.TimeoutException;
import java.util.function.IntFunction;

/**
 * Locksmith's semaphore, read-write lock and leader election over a store, opened by URI as an application opens
 * them: {@code client.semaphore(name, N)}, {@code client.readWriteLock(name)} (16 readers at most, the default) and
 * {@code client.election(name)}, each with the URI's lease.
 */
final class LocksmithPrimitives extends PrimitiveSubject.Base {

    private final IntFunction<String> uriForPort;

    LocksmithPrimitives(String label, Store store, String uri) {
        super(label, store);
        this.uriForPort = port -> uri;
    }

    /**
     * Each client opened through a proxy of its own to the store's {@code storePort}, so that it can be cut off.
     *
     * @param uriForPort the URI of a client that reaches the store at that (the proxy's) port
     */
    LocksmithPrimitives(String label, Store store, int storePort, IntFunction<String> uriForPort) {
        super(label, store, storePort);
        this.uriForPort = uriForPort;
    }

    @Override
    public boolean isLocksmith() {
        return true;
    }

    @Override
    public Primitives openPrimitives() throws Exception {
        TcpProxy proxy = proxy();
        LockClient client;
        try {
            client = LockClient.open(uriForPort.apply(proxy == null ? 0 : proxy.port()));
        } catch (RuntimeException e) {
            closeThrough(proxy, true, () -> { });
            throw e;
        }
        return new Primitives() {
            private volatile boolean cut;

            @Override
            public Held acquirePermits(String name, int size, int permits, Duration maxWait) throws TimeoutException {
                return held(client.semaphore(name, size).tryAcquire(permits, maxWait), name, maxWait);
            }

            @Override
            public Held acquireRead(String name, Duration maxWait) throws TimeoutException {
                return held(client.readWriteLock(name).readLock().tryAcquire(maxWait), name, maxWait);
            }

            @Override
            public Held acquireWrite(String name, Duration maxWait) throws TimeoutException {
                return held(client.readWriteLock(name).writeLock().tryAcquire(maxWait), name, maxWait);
            }

            @Override
            public void campaign(String name, Runnable onElected) {
                LeaderElection election = client.election(name);
                election.onElected(term -> onElected.run());
                election.join();
            }

            @Override
            public void cutOff() {
                cut = true;
                LocksmithPrimitives.this.cutOff(proxy);
            }

            @Override
            public void close() throws Exception {
                // Releases what it holds, the term included: the next candidate is woken at once.
                closeThrough(proxy, cut, client::close);
            }
        };
    }

    private Subject.Held held(Optional<? extends Lease> lease, String name, Duration maxWait) throws TimeoutException {
        if (lease.isEmpty()) {
            throw new TimeoutException(label() + " did not acquire " + name + " within " + maxWait);
        }
        Lease held = lease.get();
        return held::close;
    }
}
