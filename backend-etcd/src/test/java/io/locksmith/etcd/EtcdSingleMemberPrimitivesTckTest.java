package io.locksmith.etcd;

import io.locksmith.tck.PrimitivesTck;
import io.locksmith.tck.TckTiming;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * The primitives' kit (semaphore R11, read-write lock R12, election R13) against one etcd member over TLS with client
 * certificates and authentication, as {@link EtcdSingleMemberLockTckTest} runs the lock kit: a class of its own so
 * that the two kits run side by side in two test JVMs (together they took 250 s in one).
 */
class EtcdSingleMemberPrimitivesTckTest extends PrimitivesTck {

    private static SecureEtcdKitStore etcd;

    @BeforeAll
    static void startEtcd() {
        etcd = SecureEtcdKitStore.start("etcd-primitives-kit");
    }

    @AfterAll
    static void stopEtcd() {
        if (etcd != null) {
            etcd.close();
        }
    }

    @Override
    protected String storeUri() {
        return etcd.lockUri();
    }

    /** Deletes the holder's key as root (R13.3: a term the store drops). */
    @Override
    protected void expireBehindClientsBack(String lockName) {
        EtcdTckSupport.deleteHolderKey(etcd.root(), lockName);
    }

    @Override
    protected TckTiming timing() {
        return EtcdTckSupport.TIMING;
    }
}
