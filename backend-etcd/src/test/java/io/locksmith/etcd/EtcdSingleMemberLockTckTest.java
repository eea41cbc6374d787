package io.locksmith.etcd;

import io.etcd.jetcd.Client;
import io.locksmith.LockClient;
import io.locksmith.spi.LockProvider;
import io.locksmith.spi.LockUri;
import io.locksmith.spi.ProviderContext;
import io.locksmith.tck.ListingTck;
import io.locksmith.tck.LockTck;
import io.locksmith.tck.RegistryTck;
import io.locksmith.tck.TckTiming;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Nested;

import java.time.Duration;

/** The full TCK against one etcd member. */
class EtcdSingleMemberLockTckTest extends LockTck {

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
    protected LockClient newClient() {
        return LockClient.open(storeUri());
    }

    /** The kit opens its own clients on this URI too: through its SPI fault injector, with a trace id source. */
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

    @Override
    protected TckTiming timing() {
        return EtcdTckSupport.TIMING;
    }

    /** The listing kit ({@link ListingTck}) on the same etcd member, started once for every kit of this class. */
    @Nested
    class Listing extends ListingTck {
        @Override
        protected LockClient newClient() {
            return LockClient.open(storeUri());
        }
    }

    /** The registry kit ({@link RegistryTck}) on the same etcd member. */
    @Nested
    class Registry extends RegistryTck {
        @Override
        protected LockProvider newProvider() {
            return new EtcdLockProviderFactory().create(LockUri.parse(storeUri()),
                    new ProviderContext("test", (grant, reason, cause) -> { }));
        }

        @Override
        protected Duration shortTtl() {
            return Duration.ofSeconds(1);
        }
    }
}
