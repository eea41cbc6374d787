package io.locksmith.bench;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;
import org.apache.curator.retry.RetryNTimes;

import java.time.Duration;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Curator's {@code InterProcessMutex}, one per lock name and client, as an application keeps them. No
 * renewal: the ZooKeeper session keeps every lock node alive with the client's heartbeat.
 */
final class CuratorSubject implements Subject {

    private final String label;
    private final String connectString;
    private final Duration sessionTimeout;

    CuratorSubject(String label, String connectString, Duration sessionTimeout) {
        this.label = label;
        this.connectString = connectString;
        this.sessionTimeout = sessionTimeout;
    }

    @Override
    public String label() {
        return label;
    }

    @Override
    public Store store() {
        return Store.ZOOKEEPER;
    }

    @Override
    public boolean isLocksmith() {
        return false;
    }

    @Override
    public Contender open(int threads) throws InterruptedException {
        CuratorFramework curator = CuratorFrameworkFactory.newClient(connectString, (int) sessionTimeout.toMillis(),
                5_000, new RetryNTimes(3, 100));
        curator.start();
        if (!curator.blockUntilConnected(10, TimeUnit.SECONDS)) {
            curator.close();
            throw new IllegalStateException(label + " could not connect to ZooKeeper at " + connectString);
        }
        ConcurrentMap<String, InterProcessMutex> mutexes = new ConcurrentHashMap<>();
        return new Contender() {
            @Override
            public Held acquire(String name, Duration maxWait) throws Exception {
                InterProcessMutex mutex = mutexes.computeIfAbsent(name,
                        n -> new InterProcessMutex(curator, "/bench-curator/" + n));
                if (!mutex.acquire(maxWait.toMillis(), TimeUnit.MILLISECONDS)) {
                    throw new TimeoutException(label + " did not acquire " + name + " within " + maxWait);
                }
                return mutex::release;
            }

            @Override
            public void close() {
                curator.close();
            }
        };
    }
}
