package io.locksmith.zookeeper;

import io.locksmith.LockStoreException;
import io.locksmith.spi.LockProvider;
import io.locksmith.spi.LockProviderFactory;
import io.locksmith.spi.LockUri;
import io.locksmith.spi.ProviderContext;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.api.ACLProvider;
import org.apache.zookeeper.data.ACL;
import org.apache.curator.retry.RetryUntilElapsed;

import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * {@code zookeeper://host1:2181,host2:2181/base/path?sessionTimeout=15s&connectionTimeout=5s&onSuspended=lose}:
 * locks on a ZooKeeper ensemble through Apache Curator. See {@code docs/ZOOKEEPER.md} for the grammar and
 * what the store guarantees.
 *
 * <p>{@link #create} connects before it returns, so an unreachable ensemble fails at once with a
 * {@link LockStoreException} rather than at the first lock.
 */
public final class ZooKeeperLockProviderFactory implements LockProviderFactory {

    /** Pause between retries of an operation while the connection is down. */
    private static final int RETRY_SLEEP_MILLIS = 100;

    @Override
    public Set<String> schemes() {
        return Set.of("zookeeper");
    }

    /** Parses the settings as {@link #create} does, without connecting. */
    @Override
    public boolean validate(LockUri uri) {
        ZooKeeperSettings.from(uri);
        return true;
    }

    @Override
    public LockProvider create(LockUri uri, ProviderContext context) {
        ZooKeeperSettings settings = ZooKeeperSettings.from(uri);
        int connectionMillis = (int) settings.connectionTimeout().toMillis();
        CuratorFrameworkFactory.Builder builder = CuratorFrameworkFactory.builder()
                .connectString(settings.connectString())
                .sessionTimeoutMs((int) settings.sessionTimeout().toMillis())
                .connectionTimeoutMs(connectionMillis)
                // An operation retries while the connection is down, but no longer than one connection timeout:
                // a lock call never hangs for long on a dead ensemble.
                .retryPolicy(new RetryUntilElapsed(connectionMillis, RETRY_SLEEP_MILLIS))
                // The hosts of the URI are the ones to use. Curator's ensemble tracker would replace them with the
                // addresses the servers give in their own configuration, bypassing whatever the URI goes through
                // (a proxy, a load balancer, NAT, DNS names): a client told to use one path to the ensemble then
                // quietly uses another. Found by R7.7, whose client went around its silenced proxies.
                .ensembleTracker(false)
                .zkClientConfig(settings.clientConfig());
        if (settings.credentials() != null) {
            // Every node this client makes (Curator's too) is its identity's alone: no other client can delete a
            // held lock's node, queue behind it or read its holder.
            builder.authorization("digest", settings.credentials().authBytes())
                    .aclProvider(new ACLProvider() {
                        @Override
                        public List<ACL> getDefaultAcl() {
                            return settings.acl();
                        }

                        @Override
                        public List<ACL> getAclForPath(String path) {
                            return settings.acl();
                        }
                    });
        }
        CuratorFramework curator = builder.build();
        long connectingSince = System.nanoTime();
        boolean accessControlled;
        curator.start();
        try {
            if (!curator.blockUntilConnected(connectionMillis, TimeUnit.MILLISECONDS)) {
                throw new LockStoreException("cannot connect to " + settings.describe() + " within "
                        + settings.connectionTimeout().toMillis() + " ms (connectionTimeout); is ZooKeeper running"
                        + " there?" + (settings.tls() == null ? "" : " With TLS, also check that the servers listen"
                        + " with TLS on that port (secureClientPort), that trustStore holds the authority of their"
                        + " certificates, that the certificates name the host as the URI does, and, if the servers"
                        + " ask for a client certificate, that keyStore holds one they trust"), null);
            }
            accessControlled = AccessCheck.check(curator, settings);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            curator.close();
            throw new LockStoreException("interrupted while connecting to " + settings.describe(), e);
        } catch (RuntimeException e) {
            curator.close();
            throw e;
        } catch (Exception e) {
            curator.close();
            throw new LockStoreException(settings.describe() + " failed to check its access to "
                    + settings.basePath() + ": " + e, e);
        }
        return new ZooKeeperLockProvider(curator, settings, context, connectingSince, accessControlled);
    }
}
