package io.locksmith.etcd;

import io.locksmith.tck.kits.ElectionKit;
import io.locksmith.tck.kits.ReadWriteKit;
import io.locksmith.tck.kits.SemaphoreKit;
import io.etcd.jetcd.Client;
import io.locksmith.Capability;
import io.locksmith.tck.StoreTck;
import io.locksmith.tck.TckTiming;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

import java.util.Set;

/**
 * The full TCK against one etcd member;
 * and the primitives' kit (SemaphoreKit, ReadWriteKit, ElectionKit) on the same server.
 */
class EtcdSingleMemberLockTckTest extends StoreTck implements SemaphoreKit, ReadWriteKit, ElectionKit {

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

    /** Every client of the kits is opened on this URI, the kit's own through its SPI fault injector too. */
    @Override
    protected String storeUri() {
        return etcd.uri("");
    }

    /** Revokes the provider's leases, as etcd ends a lease (R9.13). */
    @Override
    protected void endStoreSession(io.locksmith.spi.LockProvider storeProvider) {
        EtcdTckSupport.revokeLeases(direct, storeProvider);
    }

    @Override
    protected void expireBehindClientsBack(String lockName) {
        EtcdTckSupport.deleteHolderKey(direct, lockName);
    }

    /** What docs/ETCD.md promises (R8.11). */
    @Override
    protected Set<Capability> expectedCapabilities() {
        return EtcdTckSupport.CAPABILITIES;
    }

    @Override
    protected TckTiming timing() {
        return EtcdTckSupport.TIMING;
    }
}
