package io.locksmith.bench;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.recipes.leader.LeaderLatch;
import org.apache.curator.framework.recipes.leader.LeaderLatchListener;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;
import org.apache.curator.framework.recipes.locks.InterProcessReadWriteLock;
import org.apache.curator.framework.recipes.locks.InterProcessSemaphoreV2;
import org.apache.curator.framework.recipes.locks.Lease;
import org.apache.curator.retry.RetryNTimes;
import io.locksmith.tck.fault.TcpProxy;

import java.time.Duration;
import java.util.Collection;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Curator's own recipes, one object per name and client as an application keeps them:
 * {@code InterProcessSemaphoreV2}, {@code InterProcessReadWriteLock} and {@code LeaderLatch}. No lease: the ZooKeeper
 * session (15 s, as Locksmith's) keeps every node alive with the client's heartbeat, and closing the client ends the
 * session, which deletes its nodes at once.
 */
final class CuratorPrimitives extends PrimitiveSubject.Base {

    private final String connectString;
    private final Duration sessionTimeout;

    CuratorPrimitives(String label, String connectString, Duration sessionTimeout) {
        super(label, Store.ZOOKEEPER);
        this.connectString = connectString;
        this.sessionTimeout = sessionTimeout;
    }

    /** Each client connected through a proxy of its own to the server's {@code port}, so that it can be cut off. */
    CuratorPrimitives(String label, int port, Duration sessionTimeout) {
        super(label, Store.ZOOKEEPER, port);
        this.connectString = null;
        this.sessionTimeout = sessionTimeout;
    }

    @Override
    public Primitives openPrimitives() throws Exception {
        TcpProxy proxy = proxy();
        String connect = proxy == null ? connectString : proxy.address();
        CuratorFramework curator = CuratorFrameworkFactory.newClient(connect, (int) sessionTimeout.toMillis(),
                5_000, new RetryNTimes(3, 100));
        curator.start();
        if (!curator.blockUntilConnected(10, TimeUnit.SECONDS)) {
            closeThrough(proxy, true, curator::close);
            throw new IllegalStateException(label() + " could not connect to ZooKeeper at " + connect);
        }
        ConcurrentMap<String, InterProcessSemaphoreV2> semaphores = new ConcurrentHashMap<>();
        ConcurrentMap<String, InterProcessReadWriteLock> readWriteLocks = new ConcurrentHashMap<>();
        return new Primitives() {
            private volatile boolean cut;

            @Override
            public Held acquirePermits(String name, int size, int permits, Duration maxWait) throws Exception {
                InterProcessSemaphoreV2 semaphore = semaphores.computeIfAbsent(name,
                        n -> new InterProcessSemaphoreV2(curator, "/bench-curator-semaphore/" + n, size));
                Collection<Lease> leases = semaphore.acquire(permits, maxWait.toMillis(), TimeUnit.MILLISECONDS);
                if (leases == null) {
                    throw timeout(name, maxWait);
                }
                return () -> semaphore.returnAll(leases);
            }

            @Override
            public Held acquireRead(String name, Duration maxWait) throws Exception {
                return acquire(readWriteLock(name).readLock(), name, maxWait);
            }

            @Override
            public Held acquireWrite(String name, Duration maxWait) throws Exception {
                return acquire(readWriteLock(name).writeLock(), name, maxWait);
            }

            private InterProcessReadWriteLock readWriteLock(String name) {
                return readWriteLocks.computeIfAbsent(name,
                        n -> new InterProcessReadWriteLock(curator, "/bench-curator-rw/" + n));
            }

            private Held acquire(InterProcessMutex mutex, String name, Duration maxWait) throws Exception {
                if (!mutex.acquire(maxWait.toMillis(), TimeUnit.MILLISECONDS)) {
                    throw timeout(name, maxWait);
                }
                return mutex::release;
            }

            @Override
            public void campaign(String name, Runnable onElected) throws Exception {
                LeaderLatch latch = new LeaderLatch(curator, "/bench-curator-election/" + name);
                latch.addListener(new LeaderLatchListener() {
                    @Override
                    public void isLeader() {
                        onElected.run();
                    }

                    @Override
                    public void notLeader() {
                    }
                });
                latch.start();
            }

            @Override
            public void cutOff() {
                cut = true;
                CuratorPrimitives.this.cutOff(proxy);
            }

            @Override
            public void close() throws Exception {
                // Ends the session: the server deletes its nodes (the latch's among them) at once.
                closeThrough(proxy, cut, curator::close);
            }
        };
    }

    private TimeoutException timeout(String name, Duration maxWait) {
        return new TimeoutException(label() + " did not acquire " + name + " within " + maxWait);
    }
}
