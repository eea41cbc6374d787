package io.locksmith.etcd;

import io.locksmith.spi.LockProvider;
import io.locksmith.spi.LockUri;
import io.locksmith.spi.ProviderContext;
import io.locksmith.tck.RegistryTck;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

import java.time.Duration;

/** Registry records (used by the migration phase guard) on a real etcd member. */
class EtcdRegistryTest extends RegistryTck {

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
    protected LockProvider newProvider() {
        return new EtcdLockProviderFactory().create(LockUri.parse(etcd.uri("")),
                new ProviderContext("test", (grant, reason, cause) -> { }));
    }

    @Override
    protected Duration shortTtl() {
        return Duration.ofSeconds(1);
    }
}
