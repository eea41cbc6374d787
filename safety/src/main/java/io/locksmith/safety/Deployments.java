package io.locksmith.safety;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/** The deployments a safety run knows, by name. */
public final class Deployments {

    private static final Map<String, Supplier<Deployment>> ALL = new LinkedHashMap<>();

    static {
        ALL.put("redis-single", RedisSingleDeployment::new);
        ALL.put("redis-sentinel", RedisSentinelDeployment::new);
        ALL.put("redis-sentinel-wait1", () -> new RedisSentinelDeployment(1));
        ALL.put("redis-cluster", RedisClusterDeployment::new);
        ALL.put("redlock-3", () -> new RedLockDeployment(3));
        ALL.put("redlock-5", () -> new RedLockDeployment(5));
        ALL.put("zookeeper-single", ZooKeeperDeployment::new);
        ALL.put("zookeeper-3", ZooKeeperEnsembleDeployment::new);
        ALL.put("etcd-single", () -> new EtcdDeployment(1));
        ALL.put("etcd-3", () -> new EtcdDeployment(3));
        ALL.put("postgres-single", PostgresDeployment::new);
        ALL.put("postgres-standby", PostgresStandbyDeployment::new);
    }

    private Deployments() {
    }

    /** Every known deployment name, in report order. */
    public static List<String> names() {
        return List.copyOf(ALL.keySet());
    }

    /**
     * Starts the deployment {@code name}.
     *
     * @throws IllegalArgumentException if no deployment has that name
     */
    public static Deployment start(String name) {
        Supplier<Deployment> factory = ALL.get(name);
        if (factory == null) {
            throw new IllegalArgumentException("unknown deployment '" + name + "'; known: " + names());
        }
        return factory.get();
    }
}
