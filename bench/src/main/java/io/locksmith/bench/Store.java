package io.locksmith.bench;

/** The lock stores the bench compares clients on. */
public enum Store {
    REDIS("Redis"),
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
