package io.locksmith.zookeeper;

import io.locksmith.spi.LockUri;
import org.apache.zookeeper.client.ZKClientConfig;

import java.util.Optional;

/**
 * The connection settings a {@code zookeeper://} URI gives a ZooKeeper client, for tools that open a client of their
 * own on the same ensemble as the lock client would ({@code lockctl doctor}): TLS and digest credentials, read exactly
 * as the backend reads them.
 */
public final class ZooKeeperClientSettings {

    private ZooKeeperClientSettings() {
    }

    /**
     * The ZooKeeper client configuration of {@code uri}: its Netty socket with TLS when the URI says {@code tls=true}.
     *
     * @throws io.locksmith.LockConfigurationException if the URI is not a valid {@code zookeeper://} URI
     */
    public static ZKClientConfig clientConfig(LockUri uri) {
        return ZooKeeperSettings.from(uri).clientConfig();
    }

    /**
     * The digest authentication of {@code uri} ({@code user:password@}), as {@code addAuthInfo("digest", ...)} takes
     * it; empty without credentials.
     *
     * @throws io.locksmith.LockConfigurationException if the URI is not a valid {@code zookeeper://} URI
     */
    public static Optional<byte[]> digestAuth(LockUri uri) {
        return Optional.ofNullable(ZooKeeperSettings.from(uri).credentials()).map(ZooKeeperSettings.Credentials::authBytes);
    }

    /**
     * Whether {@code uri} connects with TLS.
     *
     * @throws io.locksmith.LockConfigurationException if the URI is not a valid {@code zookeeper://} URI
     */
    public static boolean usesTls(LockUri uri) {
        return ZooKeeperSettings.from(uri).tls() != null;
    }

    /**
     * The base path of {@code uri} ({@code /locksmith} by default).
     *
     * @throws io.locksmith.LockConfigurationException if the URI is not a valid {@code zookeeper://} URI
     */
    public static String basePath(LockUri uri) {
        return ZooKeeperSettings.from(uri).basePath();
    }

    /**
     * The digest identity of {@code uri}'s credentials as ZooKeeper names it in ACLs ({@code user:base64(sha1)});
     * empty without credentials.
     *
     * @throws io.locksmith.LockConfigurationException if the URI is not a valid {@code zookeeper://} URI
     */
    public static Optional<String> digestId(LockUri uri) {
        return Optional.ofNullable(ZooKeeperSettings.from(uri).credentials()).map(ZooKeeperSettings.Credentials::digestId);
    }
}
