package io.locksmith.integration;

import io.locksmith.tck.server.ServerProcess;
import io.locksmith.tck.server.StoreServers;

/** The registry's behaviours on one etcd member (jetcd). */
class EtcdLockRegistryBehaviourTest extends LockRegistryBehaviourTest {

    @Override
    protected Server startServer() {
        ServerProcess etcd = StoreServers.etcd();
        return Servers.of(etcd, "etcd://127.0.0.1:" + etcd.port());
    }
}
