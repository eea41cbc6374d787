package io.locksmith.etcd;

import io.etcd.jetcd.Client;
import io.locksmith.tck.server.ServerProcess;
import io.locksmith.tck.server.TestCertificates;

/**
 * The kits' etcd member over TLS with client certificates and authentication ({@link SecureEtcd}, 300 s token TTL),
 * with a root client for what the kits do behind the lock clients' backs (revoking leases, deleting keys: rights
 * the lock user lacks). {@link EtcdSingleMemberLockTckTest} and {@link EtcdSingleMemberPrimitivesTckTest} each start
 * one, so that the two kits run in two test JVMs side by side.
 */
final class SecureEtcdKitStore implements AutoCloseable {

    private final TestCertificates certificates;
    private final SecureEtcd etcd;
    private final Client root;

    private SecureEtcdKitStore(TestCertificates certificates, SecureEtcd etcd, Client root) {
        this.certificates = certificates;
        this.etcd = etcd;
        this.root = root;
    }

    /** Certificates named after {@code name}, then the member, then its root client; all undone if one fails. */
    static SecureEtcdKitStore start(String name) {
        TestCertificates certificates = TestCertificates.create(name);
        SecureEtcd etcd = null;
        try {
            etcd = SecureEtcd.start(certificates, true, 300);
            return new SecureEtcdKitStore(certificates, etcd, etcd.root());
        } catch (RuntimeException | Error e) {
            if (etcd != null) {
                etcd.close();
            }
            ServerProcess.deleteRecursively(certificates.dir());
            throw e;
        }
    }

    /**
     * The URI every client of the kits is opened on, the kit's own through its SPI fault injector too:
     * {@code etcds://locker:...@127.0.0.1:port?trustStore=...&clientCert=...&clientKey=...}.
     */
    String lockUri() {
        return etcd.lockUri("");
    }

    /** The member, for clients of other identities (R2.6). */
    SecureEtcd member() {
        return etcd;
    }

    /** As root. */
    Client root() {
        return root;
    }

    @Override
    public void close() {
        root.close();
        etcd.close();
        ServerProcess.deleteRecursively(certificates.dir());
    }
}
