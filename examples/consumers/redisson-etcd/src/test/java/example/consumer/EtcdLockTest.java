package example.consumer;

import io.locksmith.tck.server.ServerProcess;
import io.locksmith.tck.server.StoreServers;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** A lock on a real single-member etcd through locksmith-etcd, Redisson on the same class path. */
class EtcdLockTest {

    private static ServerProcess etcd;

    @BeforeAll
    static void startEtcd() {
        etcd = StoreServers.etcd();
    }

    @AfterAll
    static void stopEtcd() {
        if (etcd != null) {
            etcd.close();
        }
    }

    @Test
    void lockIsExclusiveAndHandedOver() {
        LockHandover.check("etcd://127.0.0.1:" + etcd.port(), "etcd");
    }
}
