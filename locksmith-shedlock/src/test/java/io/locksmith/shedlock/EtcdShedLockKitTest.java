package io.locksmith.shedlock;

import io.locksmith.LockClient;
import io.locksmith.tck.server.ServerProcess;
import io.locksmith.tck.server.StoreServers;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** ShedLock's kit on one etcd member (jetcd). */
class EtcdShedLockKitTest extends LocksmithShedLockKitTest {

    static ServerProcess etcd;
    static LockClient client;

    @BeforeAll
    static void start() {
        etcd = StoreServers.etcd();
        client = LockClient.open("etcd://127.0.0.1:" + etcd.port());
    }

    @AfterAll
    static void stop() {
        if (client != null) {
            client.close();
        }
        if (etcd != null) {
            etcd.close();
        }
    }

    @Override
    protected LockClient client() {
        return client;
    }
}
