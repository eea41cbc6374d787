package io.locksmith.lockctl;

import io.locksmith.tck.server.FreePorts;
import io.locksmith.tck.server.ServerProcess;

import java.nio.file.Path;
import java.util.List;

/** Real store servers for the tests, on free loopback ports, through the TCK's {@link ServerProcess}. */
final class Servers {

    private Servers() {
    }

    static ServerProcess redis(Path workDir, String... extraArgs) {
        int port = FreePorts.next();
        List<String> command = new java.util.ArrayList<>(List.of("redis-server", "--port", String.valueOf(port),
                "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", workDir.toString()));
        command.addAll(List.of(extraArgs));
        return ServerProcess.start("redis-" + port, command, workDir, port, "apt-get install -y redis-server");
    }

    /** A Sentinel watching {@code masterName} at {@code masterPort}, with a quorum of one. */
    static ServerProcess sentinel(Path workDir, String masterName, int masterPort) throws java.io.IOException {
        int port = FreePorts.next();
        Path config = workDir.resolve("sentinel-" + port + ".conf");
        java.nio.file.Files.writeString(config, "port " + port + "\nbind 127.0.0.1\ndir " + workDir + "\n"
                + "sentinel monitor " + masterName + " 127.0.0.1 " + masterPort + " 1\n");
        // "redis-server FILE --sentinel" is what the redis-sentinel link runs; the link is a separate Debian package.
        return ServerProcess.start("sentinel-" + port, List.of("redis-server", config.toString(), "--sentinel"), workDir,
                port, "apt-get install -y redis-server");
    }

    static ServerProcess etcd(Path workDir) {
        int clientPort = FreePorts.next();
        int peerPort = FreePorts.next();
        String client = "http://127.0.0.1:" + clientPort;
        String peer = "http://127.0.0.1:" + peerPort;
        List<String> command = List.of("etcd", "--name", "lockctl", "--data-dir", workDir.resolve("data").toString(),
                "--listen-client-urls", client, "--advertise-client-urls", client,
                "--listen-peer-urls", peer, "--initial-advertise-peer-urls", peer,
                "--initial-cluster", "lockctl=" + peer);
        return ServerProcess.start("etcd-" + clientPort, command, workDir, clientPort, "apt-get install -y etcd-server");
    }
}
