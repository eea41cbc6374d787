package io.locksmith.etcd;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.ClientBuilder;
import io.etcd.jetcd.auth.Permission;
import io.locksmith.tck.server.FreePorts;
import io.locksmith.tck.server.ServerProcess;
import io.locksmith.tck.server.StoreServers;
import io.locksmith.tck.server.TestCertificates;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.awaitility.Awaitility.await;

/**
 * One etcd member with authentication on (simple tokens), optionally over TLS with client certificates, set up as an
 * operator would with etcd's own API: user {@code root}, a lock user {@value #LOCK_USER} whose role
 * {@value #LOCK_ROLE} has READWRITE on the lock prefix and the registry prefix (docs/ETCD.md), and a user
 * {@value #OTHER_USER} whose role covers only {@value #OTHER_PREFIX}.
 */
final class SecureEtcd implements AutoCloseable {

    static final String ROOT_PASSWORD = "root-Pa55";
    static final String LOCK_USER = "locker";
    static final String LOCK_PASSWORD = "locker-Pa55word";
    static final String LOCK_ROLE = "locksmith-locks";
    static final String OTHER_USER = "other-team";
    static final String OTHER_PASSWORD = "other-Pa55word";
    static final String OTHER_PREFIX = "/other-team/";

    private final ServerProcess server;
    private final Path dataDir;
    private final TestCertificates certificates;
    private final TestCertificates.ClientCertificate clientCert;

    private SecureEtcd(ServerProcess server, Path dataDir, TestCertificates certificates,
                       TestCertificates.ClientCertificate clientCert) {
        this.server = server;
        this.dataDir = dataDir;
        this.certificates = certificates;
        this.clientCert = clientCert;
    }

    /**
     * Starts the member and sets up its users and roles.
     *
     * @param certificates    null for plain HTTP, else TLS with its server certificate
     * @param clientCertAuth  with TLS: clients must present a certificate of that authority
     * @param authTokenTtl    etcd's {@code --auth-token-ttl} (seconds of idleness after which a token is invalid)
     */
    static SecureEtcd start(TestCertificates certificates, boolean clientCertAuth, int authTokenTtl) {
        Path dataDir;
        try {
            dataDir = Files.createTempDirectory("locksmith-etcd-secure-");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        int clientPort = FreePorts.next();
        int peerPort = FreePorts.next();
        ServerProcess server = StoreServers.etcdMember("secure", clientPort, peerPort,
                "secure=http://127.0.0.1:" + peerPort, dataDir, certificates, clientCertAuth,
                List.of("--auth-token", "simple", "--auth-token-ttl", Integer.toString(authTokenTtl)));
        TestCertificates.ClientCertificate clientCert = clientCertAuth
                ? certificates.clientCertificate("locksmith-app") : null;
        SecureEtcd etcd = new SecureEtcd(server, dataDir, certificates, clientCert);
        try {
            etcd.enableAuth();
        } catch (RuntimeException e) {
            etcd.close();
            throw e;
        }
        return etcd;
    }

    private void enableAuth() {
        try (Client admin = builder().build()) {
            await("etcd on " + server.port() + " answers").atMost(Duration.ofSeconds(30))
                    .pollInterval(Duration.ofMillis(100)).ignoreExceptions()
                    .until(() -> admin.getKVClient().get(bytes("health")).get(2, TimeUnit.SECONDS) != null);
            var auth = admin.getAuthClient();
            auth.roleAdd(bytes("root")).get(10, TimeUnit.SECONDS);
            auth.userAdd(bytes("root"), bytes(ROOT_PASSWORD)).get(10, TimeUnit.SECONDS);
            auth.userGrantRole(bytes("root"), bytes("root")).get(10, TimeUnit.SECONDS);
            auth.roleAdd(bytes(LOCK_ROLE)).get(10, TimeUnit.SECONDS);
            grantPrefix(admin, LOCK_ROLE, EtcdSettings.DEFAULT_PREFIX);
            grantPrefix(admin, LOCK_ROLE, "/locksmith.registry/");
            auth.userAdd(bytes(LOCK_USER), bytes(LOCK_PASSWORD)).get(10, TimeUnit.SECONDS);
            auth.userGrantRole(bytes(LOCK_USER), bytes(LOCK_ROLE)).get(10, TimeUnit.SECONDS);
            auth.roleAdd(bytes("other-role")).get(10, TimeUnit.SECONDS);
            grantPrefix(admin, "other-role", OTHER_PREFIX);
            auth.userAdd(bytes(OTHER_USER), bytes(OTHER_PASSWORD)).get(10, TimeUnit.SECONDS);
            auth.userGrantRole(bytes(OTHER_USER), bytes("other-role")).get(10, TimeUnit.SECONDS);
            auth.authEnable().get(10, TimeUnit.SECONDS);
        } catch (Exception e) {
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
            throw new IllegalStateException("could not set up authentication on etcd " + server.port(), e);
        }
    }

    /** READWRITE on every key starting with {@code prefix}: the range [prefix, prefix with its last byte + 1). */
    static void grantPrefix(Client admin, String role, String prefix) throws Exception {
        byte[] end = prefix.getBytes(StandardCharsets.UTF_8);
        end[end.length - 1]++;
        admin.getAuthClient().roleGrantPermission(bytes(role), bytes(prefix), ByteSequence.from(end),
                Permission.Type.READWRITE).get(10, TimeUnit.SECONDS);
    }

    /** A jetcd builder for this member, with TLS and the client certificate where the member needs them. */
    ClientBuilder builder() {
        ClientBuilder builder = Client.builder().endpoints(endpoint());
        if (certificates != null) {
            try {
                builder.sslContext(ssl -> {
                    ssl.trustManager(certificates.caCert().toFile());
                    if (clientCert != null) {
                        ssl.keyManager(clientCert.cert().toFile(), clientCert.key().toFile());
                    }
                });
            } catch (javax.net.ssl.SSLException e) {
                throw new IllegalStateException(e);
            }
        }
        return builder;
    }

    /** A jetcd client as {@code user}. */
    Client client(String user, String password) {
        return builder().user(bytes(user)).password(bytes(password)).build();
    }

    /** A jetcd client as root, for acting behind the lock clients' backs. */
    Client root() {
        return client("root", ROOT_PASSWORD);
    }

    String endpoint() {
        return (certificates == null ? "http" : "https") + "://127.0.0.1:" + server.port();
    }

    /**
     * {@code etcd[s]://user:password@127.0.0.1:port?trustStore=...&clientCert=...&clientKey=...&extra}; a null user
     * leaves the credentials out.
     */
    String uri(String user, String password, String extraParameters) {
        List<String> parameters = new ArrayList<>();
        if (certificates != null) {
            parameters.add("trustStore=" + certificates.caCert());
        }
        if (clientCert != null) {
            parameters.add("clientCert=" + clientCert.cert());
            parameters.add("clientKey=" + clientCert.key());
        }
        if (!extraParameters.isEmpty()) {
            parameters.add(extraParameters);
        }
        return (certificates == null ? "etcd" : "etcds") + "://" + (user == null ? "" : user + ":" + password + "@")
                + "127.0.0.1:" + server.port() + (parameters.isEmpty() ? "" : "?" + String.join("&", parameters));
    }

    /** The lock user's URI. */
    String lockUri(String extraParameters) {
        return uri(LOCK_USER, LOCK_PASSWORD, extraParameters);
    }

    TestCertificates certificates() {
        return certificates;
    }

    TestCertificates.ClientCertificate clientCert() {
        return clientCert;
    }

    ServerProcess server() {
        return server;
    }

    static ByteSequence bytes(String text) {
        return ByteSequence.from(text, StandardCharsets.UTF_8);
    }

    @Override
    public void close() {
        server.close();
        ServerProcess.deleteRecursively(dataDir);
    }
}
