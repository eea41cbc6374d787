package io.locksmith.zookeeper;

import java.time.Duration;

/**
 * R9.9 with the failing case: a 4 s session and a 3 s lease, shorter than the 10 s a cut follower keeps
 * serving. Before the fix the holder was told 4.8-5.9 s after the majority granted the lock.
 */
class ZooKeeperMinorityPartitionFaultTest extends ZooKeeperMinorityPartitionTck {

    @Override
    String parameters() {
        return "lease=3s&sessionTimeout=4s";
    }

    @Override
    Duration sessionTimeout() {
        return Duration.ofSeconds(4);
    }
}
