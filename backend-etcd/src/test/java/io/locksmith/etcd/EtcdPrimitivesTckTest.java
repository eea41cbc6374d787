package io.locksmith.etcd;

import io.etcd.jetcd.Client;
import io.locksmith.tck.PrimitivesTck;
import io.locksmith.tck.TckTiming;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** The semaphore, read-write lock and election kit against one etcd member. */
class EtcdPrimitivesTckTest extends PrimitivesTck {

    private static EtcdCluster etcd;
    private static Client direct;

    @BeforeAll
    static void startEtcd() {
        etcd = EtcdCluster.start(1);
        direct = etcd.client();
    }

    @AfterAll
    static void stopEtcd() {
        if (direct != null) {
            direct.close();
        }
        if (etcd != null) {
            etcd.close();
        }
    }

    @Override
    protected String storeUri() {
        return etcd.uri("");
    }

    @Override
    protected void expireBehindClientsBack(String lockName) {
        EtcdTckSupport.deleteHolderKey(direct, lockName);
    }

    @Override
    protected TckTiming timing() {
        return EtcdTckSupport.TIMING;
    }
}
