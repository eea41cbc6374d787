package io.locksmith.bench;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.support.CloseableClient;
import io.etcd.jetcd.lease.LeaseKeepAliveResponse;
import io.grpc.stub.StreamObserver;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * jetcd's {@code Lock} service with a lease kept alive by jetcd's {@code keepAlive}: either one lease per
 * thread, granted once (the cheapest way to use it), or one lease per held lock, granted on acquire and
 * revoked on release (each lock with its own TTL, as Redisson's watchdog gives).
 */
final class JetcdSubject implements Subject {

    enum LeaseMode { PER_THREAD, PER_LOCK }

    private final String label;
    private final String endpoint;
    private final LeaseMode leaseMode;
    private final Duration leaseTtl;

    JetcdSubject(String label, String endpoint, LeaseMode leaseMode, Duration leaseTtl) {
        this.label = label;
        this.endpoint = endpoint;
        this.leaseMode = leaseMode;
        this.leaseTtl = leaseTtl;
    }

    @Override
    public String label() {
        return label;
    }

    @Override
    public Store store() {
        return Store.ETCD;
    }

    @Override
    public boolean isLocksmith() {
        return false;
    }

    @Override
    public Contender open(int threads) {
        Client client = Client.builder().endpoints(endpoint).build();
        java.util.Set<CloseableClient> keepAlives = java.util.concurrent.ConcurrentHashMap.newKeySet();
        java.util.Set<Long> leases = java.util.concurrent.ConcurrentHashMap.newKeySet(); // per-thread leases alive
        ThreadLocal<ThreadLease> threadLease = new ThreadLocal<>();
        return new Contender() {
            private ThreadLease grantKeptAlive() throws Exception {
                long lease = client.getLeaseClient().grant(leaseTtl.toSeconds()).get(10, TimeUnit.SECONDS).getID();
                CloseableClient keepAlive = client.getLeaseClient().keepAlive(lease, IGNORE);
                keepAlives.add(keepAlive);
                leases.add(lease);
                return new ThreadLease(lease, keepAlive);
            }

            @Override
            public Held acquire(String name, Duration maxWait) throws Exception {
                long lease;
                if (leaseMode == LeaseMode.PER_THREAD) {
                    ThreadLease existing = threadLease.get();
                    if (existing == null) {
                        existing = grantKeptAlive();
                        threadLease.set(existing);
                    }
                    lease = existing.id();
                } else {
                    lease = client.getLeaseClient().grant(leaseTtl.toSeconds()).get(10, TimeUnit.SECONDS).getID();
                }
                CloseableClient keepAlive = leaseMode == LeaseMode.PER_LOCK
                        ? client.getLeaseClient().keepAlive(lease, IGNORE) : null;
                ByteSequence key;
                try {
                    key = client.getLockClient().lock(bytes(name), lease)
                            .get(maxWait.toMillis(), TimeUnit.MILLISECONDS).getKey();
                } catch (TimeoutException | ExecutionException | InterruptedException e) {
                    if (keepAlive != null) {
                        keepAlive.close();
                        client.getLeaseClient().revoke(lease);
                    } else {
                        // The lock request goes on in etcd after the future's time-out and would take the lock
                        // later for a thread that no longer waits, keeping it from everyone while the thread's lease
                        // lives. Revoking the lease deletes the waiting key: a careful jetcd user does this.
                        ThreadLease abandoned = threadLease.get();
                        threadLease.remove();
                        abandoned.keepAlive().close();
                        keepAlives.remove(abandoned.keepAlive());
                        leases.remove(lease);
                        client.getLeaseClient().revoke(lease);
                    }
                    if (e instanceof TimeoutException) {
                        throw new TimeoutException(label + " did not acquire " + name + " within " + maxWait);
                    }
                    throw e;
                }
                return () -> {
                    client.getLockClient().unlock(key).get(10, TimeUnit.SECONDS);
                    if (keepAlive != null) {
                        keepAlive.close();
                        client.getLeaseClient().revoke(lease).get(10, TimeUnit.SECONDS);
                    }
                };
            }

            @Override
            public void close() {
                keepAlives.forEach(CloseableClient::close);
                // An application shutting down revokes its leases: their keys (waiting lock requests among them)
                // go now, not one TTL later, and the store is not left deleting thousands of them at once.
                java.util.List<java.util.concurrent.CompletableFuture<?>> revokes = new java.util.ArrayList<>();
                leases.forEach(lease -> revokes.add(client.getLeaseClient().revoke(lease)));
                try {
                    java.util.concurrent.CompletableFuture.allOf(revokes.toArray(java.util.concurrent.CompletableFuture[]::new))
                            .get(30, TimeUnit.SECONDS);
                } catch (Exception e) {
                    // leases not revoked run out at their TTL
                }
                client.close();
            }
        };
    }

    /** A thread's lease and its keep-alive (lease per thread). */
    private record ThreadLease(long id, CloseableClient keepAlive) {
    }

    static ByteSequence bytes(String text) {
        return ByteSequence.from(text, StandardCharsets.UTF_8);
    }

    static final StreamObserver<LeaseKeepAliveResponse> IGNORE = new StreamObserver<>() {
        @Override
        public void onNext(LeaseKeepAliveResponse value) {
        }

        @Override
        public void onError(Throwable t) {
        }

        @Override
        public void onCompleted() {
        }
    };
}
