package io.locksmith.redis;

import io.locksmith.LockClient;
import io.locksmith.LockConfigurationException;
import io.locksmith.spi.LockProvider;
import io.locksmith.spi.LockProviderFactory;
import io.locksmith.spi.LockUri;
import io.locksmith.spi.ProviderClientBuilder;
import io.locksmith.spi.ProviderContext;
import org.redisson.api.RedissonClient;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * Locksmith locks over a {@link RedissonClient} the application already has. The locks use the same Lua
 * protocol and keys as every other Locksmith Redis client, so Jedis-based and Redisson-based services
 * exclude each other on the same lock names (they do not interoperate with Redisson's own {@code RLock}).
 * <pre>{@code
 * try (LockClient locks = RedissonLocks.open(redisson)) {
 *     try (Lease lease = locks.lock("order:1001").acquire(Duration.ofSeconds(3))) {
 *         ...
 *     }
 * }
 * }</pre>
 * Closing the lock client leaves the Redisson clients open: they belong to the application.
 */
public final class RedissonLocks {

    /** The URI scheme of {@link #factory}: {@code redisson://}, with optional {@code waitReplicas}/{@code waitTimeout}. */
    public static final String SCHEME = "redisson";

    private RedissonLocks() {
    }

    /**
     * Opens a lock client on one Redisson client (a single node, Sentinel or replicated primary).
     *
     * @throws NullPointerException if {@code client} is null
     * @throws io.locksmith.LockStoreException if the server does not answer
     * @throws io.locksmith.LockConfigurationException if the client is in cluster mode (Redis Cluster runs over Jedis:
     *                                                 {@code redis-cluster://})
     */
    public static LockClient open(RedissonClient client) {
        return ProviderClientBuilder.create().uri(SCHEME + "://").factory(factory(client)).build();
    }

    /**
     * A factory for {@code ProviderClientBuilder.create().uri("redisson://").factory(...)}: one client gives locks
     * on its primary; three or more independent clients (one per primary) give RedLock over them.
     *
     * @throws NullPointerException     if {@code clients} or one of them is null
     * @throws IllegalArgumentException if there are none, or two (RedLock needs at least three)
     */
    public static LockProviderFactory factory(RedissonClient... clients) {
        Objects.requireNonNull(clients, "clients cannot be null");
        List<RedissonClient> list = List.of(clients);
        if (list.isEmpty() || list.size() == 2) {
            throw new IllegalArgumentException("give one RedissonClient, or at least three (one per independent"
                    + " primary) for RedLock; got " + list.size());
        }
        return new ExistingClientsFactory(list);
    }

    private record ExistingClientsFactory(List<RedissonClient> clients) implements LockProviderFactory {

        @Override
        public Set<String> schemes() {
            return Set.of(SCHEME);
        }

        @Override
        public LockProvider create(LockUri uri, ProviderContext context) {
            if (!uri.rawHosts().isEmpty() || !(uri.path().isEmpty() || uri.path().equals("/"))) {
                throw new LockConfigurationException("'" + uri + "' names a server; with existing Redisson clients"
                        + " the URI is just redisson:// (the clients know their servers)");
            }
            RedisCommands.ReplicaAck ack = RedisSettings.replicaAck(uri, 0);
            if (clients.size() == 1) {
                String description = "redisson:// (existing RedissonClient)";
                return RedisLockProviderFactory.single(RedissonTransports.existing(clients.get(0), description), ack,
                        description);
            }
            List<LockNode> nodes = new ArrayList<>();
            for (int i = 0; i < clients.size(); i++) {
                nodes.add(new LockNode(RedissonTransports.existing(clients.get(i),
                        "redisson:// node " + (i + 1) + " (existing RedissonClient)"), ack));
            }
            return RedisLockProviderFactory.redlock(nodes, "redisson:// RedLock over " + clients.size()
                    + " existing RedissonClients (majority " + (clients.size() / 2 + 1) + ")");
        }
    }
}
