package io.locksmith.lockctl;

import io.locksmith.tck.server.ServerProcess;
import io.locksmith.tck.server.StoreServers;

import java.nio.file.Path;

/**
 * Real store servers for the tests, on free loopback ports, from the TCK's {@link StoreServers}. The work
 * directory arguments are kept so callers read as before; the servers use their own temporary directories.
 */
final class Servers {

    private Servers() {
    }

    static ServerProcess redis(Path workDir, String... extraArgs) {
        return StoreServers.redis(extraArgs);
    }

    /** A Sentinel watching {@code masterName} at {@code masterPort}, with a quorum of one. */
    static ServerProcess sentinel(Path workDir, String masterName, int masterPort) {
        return StoreServers.sentinel(masterPort, masterName);
    }

    static ServerProcess etcd(Path workDir) {
        return StoreServers.etcd();
    }
}
