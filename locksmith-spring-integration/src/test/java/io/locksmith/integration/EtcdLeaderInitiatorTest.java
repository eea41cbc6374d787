package io.locksmith.integration;

import io.locksmith.tck.server.ServerProcess;
import io.locksmith.tck.server.StoreServers;

/** Three leader candidates on one etcd member. */
class EtcdLeaderInitiatorTest extends LeaderInitiatorAcrossJvmsTest {

    @Override
    protected LockRegistryBehaviourTest.Server startServer() {
        ServerProcess etcd = StoreServers.etcd();
        return Servers.of(etcd, "etcd://127.0.0.1:" + etcd.port());
    }
}
