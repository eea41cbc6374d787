package io.locksmith.etcd;

import io.etcd.jetcd.Client;
import io.locksmith.Capability;
import io.locksmith.tck.StoreTck;
import io.locksmith.tck.TckTiming;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

import java.util.Set;

/**
 * The full TCK against one etcd member, over TLS with client certificates ({@code etcds://}, {@code --client-cert-auth})
 * and with authentication on, as a user whose role has only what docs/ETCD.md lists (READWRITE on the lock prefix and
 * the registry prefix). The primitives' kit runs on the same set-up in {@link EtcdSingleMemberPrimitivesTckTest}; the
 * cluster kit ({@link EtcdClusterLockTckTest}) stays on plain HTTP without authentication, so both set-ups pass.
 */
class EtcdSingleMemberLockTckTest extends StoreTck {

    private static SecureEtcdKitStore etcd;

    @BeforeAll
    static void startEtcd() {
        etcd = SecureEtcdKitStore.start("etcd-kit");
    }

    @AfterAll
    static void stopEtcd() {
        if (etcd != null) {
            etcd.close();
        }
    }

    /** Every client of the kit is opened on this URI ({@link SecureEtcdKitStore#lockUri()}). */
    @Override
    protected String storeUri() {
        return etcd.lockUri();
    }

    /** Revokes the provider's leases, as etcd ends a lease (R9.13). */
    @Override
    protected void endStoreSession(io.locksmith.spi.LockProvider storeProvider) {
        EtcdTckSupport.revokeLeases(etcd.root(), storeProvider);
    }

    @Override
    protected void expireBehindClientsBack(String lockName) {
        EtcdTckSupport.deleteHolderKey(etcd.root(), lockName);
    }

    /** What docs/ETCD.md promises (R8.11), and ACCESS_CONTROL: the client logs in as a user. */
    @Override
    protected Set<Capability> expectedCapabilities() {
        Set<Capability> expected = java.util.EnumSet.copyOf(EtcdTckSupport.CAPABILITIES);
        expected.add(Capability.ACCESS_CONTROL);
        return expected;
    }

    /**
     * R2.6: a jetcd client (over the same TLS, with the client certificate) as the lock user, the other team's user
     * (whose role has only its own prefix), the lock user with a wrong password, or without credentials.
     */
    @Override
    protected io.locksmith.tck.RawStoreSession rawStoreSession(io.locksmith.tck.RawStoreSession.Identity identity) {
        SecureEtcd member = etcd.member();
        Client client = switch (identity) {
            case APPLICATION -> member.client(SecureEtcd.LOCK_USER, SecureEtcd.LOCK_PASSWORD);
            case OTHER_USER -> member.client(SecureEtcd.OTHER_USER, SecureEtcd.OTHER_PASSWORD);
            case WRONG_PASSWORD -> member.client(SecureEtcd.LOCK_USER, "wrong-" + SecureEtcd.LOCK_PASSWORD);
            case NO_CREDENTIALS -> member.builder().build();
        };
        return new EtcdRawSession(client, etcd.root());
    }

    @Override
    protected TckTiming timing() {
        return EtcdTckSupport.TIMING;
    }
}
