package io.locksmith.bench;

import io.etcd.jetcd.Client;
import io.etcd.jetcd.support.CloseableClient;
import io.locksmith.tck.fault.TcpProxy;

import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * jetcd's {@code Election} client (etcd's election service): each candidate grants a lease, keeps it alive with
 * jetcd's {@code keepAlive}, and campaigns with it; the campaign returns when the candidate leads. etcd has no
 * semaphore or read-write lock of its own, so this subject has only the election. Closing it revokes its leases, as
 * an application shutting down does, which deletes the leader's key and lets the next campaign return; a crashed
 * leader's key would stay for the lease's TTL.
 */
final class JetcdElectionSubject extends PrimitiveSubject.Base {

    private final Duration leaseTtl;

    /** Each client connected through a proxy of its own to the server's {@code port}, so that it can be cut off. */
    JetcdElectionSubject(String label, int port, Duration leaseTtl) {
        super(label, Store.ETCD, port);
        this.leaseTtl = leaseTtl;
    }

    @Override
    public Primitives openPrimitives() {
        TcpProxy proxy = proxy();
        Client client = Client.builder().endpoints("http://" + proxy.address()).build();
        Set<CloseableClient> keepAlives = ConcurrentHashMap.newKeySet();
        Set<Long> leases = ConcurrentHashMap.newKeySet();
        return new Primitives() {
            private volatile boolean cut;

            @Override
            public void campaign(String name, Runnable onElected) throws Exception {
                long lease = client.getLeaseClient().grant(leaseTtl.toSeconds()).get(10, TimeUnit.SECONDS).getID();
                leases.add(lease);
                keepAlives.add(client.getLeaseClient().keepAlive(lease, JetcdSubject.IGNORE));
                client.getElectionClient().campaign(JetcdSubject.bytes(name), lease, JetcdSubject.bytes(label()))
                        .thenRun(onElected);
            }

            @Override
            public void cutOff() {
                cut = true;
                JetcdElectionSubject.this.cutOff(proxy);
            }

            @Override
            public void close() throws Exception {
                closeThrough(proxy, cut, () -> {
                    keepAlives.forEach(CloseableClient::close);
                    if (!cut) { // a cut-off client's leases ran out in etcd; it could not revoke them anyway
                        for (long lease : leases) {
                            client.getLeaseClient().revoke(lease).get(10, TimeUnit.SECONDS);
                        }
                    }
                    client.close();
                });
            }
        };
    }
}
