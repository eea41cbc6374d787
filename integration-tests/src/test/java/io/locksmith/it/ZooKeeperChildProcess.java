package io.locksmith.it;

import io.locksmith.zookeeper.EmbeddedZooKeeper;

/**
 * The ZooKeeper server of {@link StoreUnderTest}, run in a child JVM so that it can be killed and frozen like the
 * other stores: an {@link EmbeddedZooKeeper} on the port given as the only argument, until the process dies.
 *
 * <p>Not ZooKeeper's own {@code ZooKeeperServerMain}: it opens its port before it loads its database, and a client
 * that connects in that window and is turned away ("ZooKeeperServer not running") never sees its socket closed
 * (the close fails with a NullPointerException first), so it waits two thirds of its session timeout before it
 * tries again. On a loaded machine the window was wide enough to catch the harness's first client in most full
 * builds. {@link EmbeddedZooKeeper} loads first.
 */
public final class ZooKeeperChildProcess {

    private ZooKeeperChildProcess() {
    }

    public static void main(String[] args) throws InterruptedException {
        if (args.length != 1) {
            System.err.println("usage: ZooKeeperChildProcess PORT");
            System.exit(2);
        }
        EmbeddedZooKeeper server = EmbeddedZooKeeper.start(Integer.parseInt(args[0]));
        System.out.println("serving on " + server.connectString());
        Thread.currentThread().join(); // until killed: the tests kill it with -9 or SIGSTOP it
    }
}
