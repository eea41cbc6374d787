package io.locksmith.zookeeper;

import io.locksmith.tck.server.FreePorts;
import io.locksmith.tck.server.ServerProcess;
import io.locksmith.tck.server.StoreServers;
import io.locksmith.tck.server.TestCertificates;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * A ZooKeeper server in its own JVM ({@code ZooKeeperServerMain}) that listens only with TLS ({@code secureClientPort},
 * Netty) on the server certificate of {@code certificates}, trusting their authority for client certificates.
 * Its own JVM because ZooKeeper's Netty server reads its TLS settings from system properties ({@code new ZKConfig()}),
 * and on every new connection, not once at start: in the test JVM they would have to stay set, and every client
 * configuration made there copies them ({@code ZKConfig} reads {@code zookeeper.ssl.*}), so each client of every test
 * class in the fork would offer the server's key as its own certificate.
 */
final class ZooKeeperTlsServer {

    private ZooKeeperTlsServer() {
    }

    /**
     * Starts it; the port opens before the server serves, so the first client must wait until it does.
     *
     * @param clientAuth ZooKeeper's {@code ssl.clientAuth}: {@code none}, {@code want} or {@code need}
     * @param extraConfig further {@code zoo.cfg} lines, e.g. {@code maxSessionTimeout=15000}
     */
    static ServerProcess start(TestCertificates certificates, String clientAuth, String... extraConfig)
            throws IOException {
        int port = FreePorts.next();
        Path dir = StoreServers.tempDir("zookeeper-tls");
        Path data = Files.createDirectories(dir.resolve("data"));
        // ZooKeeper reads a PEM key store as the key and its certificate in one file.
        Path keyStore = dir.resolve("server.pem");
        Files.writeString(keyStore, Files.readString(certificates.serverKey()) + Files.readString(certificates.serverCert()));
        Path config = dir.resolve("zoo.cfg");
        Files.writeString(config, "tickTime=200\ndataDir=" + data + "\nsecureClientPort=" + port
                + "\nsecureClientPortAddress=127.0.0.1\nadmin.enableServer=false\n"
                + "serverCnxnFactory=org.apache.zookeeper.server.NettyServerCnxnFactory\n"
                + "ssl.keyStore.location=" + keyStore + "\nssl.keyStore.type=PEM\n"
                + "ssl.trustStore.location=" + certificates.caCert() + "\nssl.trustStore.type=PEM\n"
                + "ssl.clientAuth=" + clientAuth + "\n" + String.join("\n", extraConfig) + "\n");
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        // The full JIT (no TieredStopAtLevel=1, as the plain server processes have): the handshakes' crypto is hot.
        // Empty lock containers are deleted every second, as EmbeddedZooKeeper does (ZooKeeper's default: a minute).
        return ServerProcess.start("zookeeper-tls-" + port, List.of(java, "-Xmx128m", "-XX:+UseSerialGC",
                        "-Dznode.container.checkIntervalMs=1000", "-cp", System.getProperty("java.class.path"),
                        "org.apache.zookeeper.server.ZooKeeperServerMain", config.toString()),
                dir, port, "a JDK (the server runs as a java child process)").deleteWorkDirOnClose();
    }

    /** A client certificate of {@code certificates}' authority with its key, in one PEM file (what keyStore= takes). */
    static Path clientKeyStore(TestCertificates certificates, String commonName) throws IOException {
        TestCertificates.ClientCertificate client = certificates.clientCertificate(commonName);
        Path pem = certificates.dir().resolve("client-" + commonName + ".pem");
        Files.writeString(pem, Files.readString(client.key()) + Files.readString(client.cert()));
        return pem;
    }
}
