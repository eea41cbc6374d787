package io.locksmith.bench;

import io.locksmith.Lease;
import io.locksmith.LockClient;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.TimeoutException;
import java.util.function.IntFunction;

/** Locksmith over a store, opened by URI exactly as an application would. */
final class LocksmithSubject implements Subject {

    private final String label;
    private final Store store;
    private final IntFunction<String> uriForThreads;

    /** @param uriForThreads the URI a client for that many threads is opened on (a pool sized to them, say) */
    LocksmithSubject(String label, Store store, IntFunction<String> uriForThreads) {
        this.label = label;
        this.store = store;
        this.uriForThreads = uriForThreads;
    }

    LocksmithSubject(String label, Store store, String uri) {
        this(label, store, threads -> uri);
    }

    @Override
    public String label() {
        return label;
    }

    @Override
    public Store store() {
        return store;
    }

    @Override
    public boolean isLocksmith() {
        return true;
    }

    String uri(int threads) {
        return uriForThreads.apply(threads);
    }

    @Override
    public Contender open(int threads) {
        LockClient client = LockClient.open(uriForThreads.apply(threads));
        return new Contender() {
            @Override
            public Held acquire(String name, Duration maxWait) throws TimeoutException {
                Optional<Lease> lease = client.lock(name).tryAcquire(maxWait);
                if (lease.isEmpty()) {
                    throw new TimeoutException(label + " did not acquire " + name + " within " + maxWait);
                }
                Lease held = lease.get();
                return new Held() {
                    @Override
                    public void release() {
                        held.close();
                    }

                    @Override
                    public Optional<Boolean> stillHeld() {
                        return Optional.of(held.isHeld());
                    }
                };
            }

            @Override
            public void close() {
                client.close();
            }
        };
    }
}
