package io.locksmith.etcd;

import io.locksmith.LockClient;
import io.locksmith.tck.ListingTck;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** Listing held locks by prefix on a real etcd member (lockctl inspect --prefix). */
class EtcdListingTest extends ListingTck {

    private static EtcdCluster etcd;

    @BeforeAll
    static void startEtcd() {
        etcd = EtcdCluster.start(1);
    }

    @AfterAll
    static void stopEtcd() {
        if (etcd != null) {
            etcd.close();
        }
    }

    @Override
    protected LockClient newClient() {
        return LockClient.open(etcd.uri(""));
    }
}
