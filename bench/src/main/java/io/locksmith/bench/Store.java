package io.locksmith.bench;

/** The lock stores the bench compares clients on. */
public enum Store {
    REDIS("Redis"),
    /**
     * A primary with two replicas and a Sentinel: what acknowledging acquire and renew by a replica ({@code WAIT},
     * the Sentinel default) costs against {@code waitReplicas=0}. Not in the default run ({@code --stores sentinel}).
     */
    SENTINEL("Redis Sentinel"),
    ZOOKEEPER("ZooKeeper"),
    ETCD("etcd"),
    POSTGRES("PostgreSQL"),
    /** The in-JVM reference store: a smoke run of the harness, no network. */
    MEM("mem");

    private final String title;

    Store(String title) {
        this.title = title;
    }

    public String title() {
        return title;
    }
}
