package io.locksmith.shedlock;

import io.locksmith.tck.server.ServerProcess;
import io.locksmith.tck.server.StoreServers;

/** ShedLock's kit on one etcd member (jetcd). */
class EtcdShedLockKitTest extends LocksmithShedLockKitTest {

    @Override
    protected Server startServer() {
        ServerProcess etcd = StoreServers.etcd();
        return of(etcd, "etcd://127.0.0.1:" + etcd.port());
    }
}
