package io.locksmith.zookeeper;

import java.time.Duration;

/** R9.9 with the default session timeout (15 s) and lease (30 s). */
class ZooKeeperMinorityPartitionDefaultsFaultTest extends ZooKeeperMinorityPartitionTck {

    @Override
    String parameters() {
        return "";
    }

    @Override
    Duration sessionTimeout() {
        return ZooKeeperSettings.DEFAULT_SESSION_TIMEOUT;
    }
}
