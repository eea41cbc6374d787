package io.locksmith.tck.server;

import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingCluster;

import java.util.ArrayList;
import java.util.List;

/**
 * ZooKeeper ensembles in the test's JVM (curator-test's {@link TestingCluster}) on ports from {@link FreePorts}.
 * {@code new TestingCluster(3)} picks each server's ports on its own, and can pick one port twice: seen in the
 * build, two servers of one ensemble given the same client port ("Multiple entries with same key"), while other
 * test JVMs on the machine were starting servers too. {@link FreePorts} never hands out a port twice, in this JVM
 * or another live one. The caller needs curator-test on its class path.
 */
public final class ZooKeeperEnsembles {

    private ZooKeeperEnsembles() {
    }

    /**
     * An ensemble of {@code size} servers, not started; each has its own data directory, deleted on close.
     *
     * @throws IllegalArgumentException if {@code size} is below 1
     */
    public static TestingCluster of(int size) {
        if (size < 1) {
            throw new IllegalArgumentException("an ensemble needs at least one server, was " + size);
        }
        List<InstanceSpec> specs = new ArrayList<>(size);
        for (int serverId = 1; serverId <= size; serverId++) {
            specs.add(new InstanceSpec(null, FreePorts.next(), FreePorts.next(), FreePorts.next(), true, serverId));
        }
        return new TestingCluster(specs);
    }
}
