package io.locksmith.etcd;

import io.etcd.jetcd.Client;
import io.etcd.jetcd.maintenance.StatusResponse;
import io.locksmith.tck.server.FreePorts;
import io.locksmith.tck.server.ServerProcess;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.awaitility.Awaitility.await;

/**
 * Real etcd members (the Debian {@code etcd-server} binary) on free loopback ports, with their data in a
 * temporary directory removed on close. Heartbeat and election timeout are small so that the smallest
 * lease TTL etcd grants is one second (1.5 election timeouts, rounded up) and a killed leader is replaced fast.
 */
final class EtcdCluster implements AutoCloseable {

    static final String INSTALL_HINT = "apt-get install -y etcd-server";
    static final int HEARTBEAT_MILLIS = 50;
    static final int ELECTION_MILLIS = 600;

    private final Path dataDir;
    private final List<Integer> clientPorts;
    private final List<ServerProcess> members;

    private EtcdCluster(Path dataDir, List<Integer> clientPorts, List<ServerProcess> members) {
        this.dataDir = dataDir;
        this.clientPorts = clientPorts;
        this.members = members;
    }

    /**
     * Starts {@code size} members and waits until the cluster answers a linearizable read.
     *
     * @throws IllegalStateException if etcd is not installed (with the install hint) or does not come up
     */
    static EtcdCluster start(int size) {
        String binary = ServerProcess.requireBinary("etcd", INSTALL_HINT);
        Path dataDir;
        try {
            dataDir = Files.createTempDirectory("locksmith-etcd-");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        List<Integer> clientPorts = new ArrayList<>();
        List<Integer> peerPorts = new ArrayList<>();
        for (int i = 0; i < size; i++) {
            clientPorts.add(FreePorts.next());
            peerPorts.add(FreePorts.next());
        }
        String initialCluster = java.util.stream.IntStream.range(0, size)
                .mapToObj(i -> "m" + i + "=http://127.0.0.1:" + peerPorts.get(i))
                .collect(Collectors.joining(","));
        List<CompletableFuture<ServerProcess>> starting = new ArrayList<>();
        for (int i = 0; i < size; i++) {
            String name = "m" + i;
            List<String> command = List.of(binary,
                    "--name", name,
                    "--data-dir", dataDir.resolve(name).toString(),
                    "--listen-client-urls", "http://127.0.0.1:" + clientPorts.get(i),
                    "--advertise-client-urls", "http://127.0.0.1:" + clientPorts.get(i),
                    "--listen-peer-urls", "http://127.0.0.1:" + peerPorts.get(i),
                    "--initial-advertise-peer-urls", "http://127.0.0.1:" + peerPorts.get(i),
                    "--initial-cluster", initialCluster,
                    "--initial-cluster-state", "new",
                    "--initial-cluster-token", dataDir.getFileName().toString(),
                    "--heartbeat-interval", Integer.toString(HEARTBEAT_MILLIS),
                    "--election-timeout", Integer.toString(ELECTION_MILLIS),
                    "--log-level", "warn");
            int port = clientPorts.get(i);
            starting.add(CompletableFuture.supplyAsync(() ->
                    ServerProcess.start("etcd-" + name + "-" + port, command, dataDir.resolve("logs"), port, INSTALL_HINT)));
        }
        List<ServerProcess> members = new ArrayList<>();
        RuntimeException failure = null;
        for (CompletableFuture<ServerProcess> member : starting) {
            try {
                members.add(member.join());
            } catch (RuntimeException e) {
                RuntimeException cause = e.getCause() instanceof RuntimeException r ? r : e;
                if (failure == null) {
                    failure = cause;
                } else {
                    failure.addSuppressed(cause);
                }
            }
        }
        EtcdCluster cluster = new EtcdCluster(dataDir, List.copyOf(clientPorts), members);
        if (failure != null) {
            cluster.close();
            throw failure;
        }
        try {
            cluster.awaitHealthy();
        } catch (RuntimeException e) {
            cluster.close();
            throw e;
        }
        return cluster;
    }

    /** Waits until a quorum answers a linearizable read. */
    void awaitHealthy() {
        try (Client client = client()) {
            await("etcd cluster on ports " + clientPorts + " answers")
                    .atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(100))
                    .ignoreExceptions()
                    .until(() -> client.getKVClient().get(io.etcd.jetcd.ByteSequence.from("health", StandardCharsets.UTF_8))
                            .get(2, TimeUnit.SECONDS) != null);
        }
    }

    /** {@code etcd://127.0.0.1:p1,...?extra} */
    String uri(String extraParameters) {
        String hosts = clientPorts.stream().map(p -> "127.0.0.1:" + p).collect(Collectors.joining(","));
        return "etcd://" + hosts + (extraParameters.isEmpty() ? "" : "?" + extraParameters);
    }

    /** A plain jetcd client on every member, for acting behind the lock clients' backs. */
    Client client() {
        return Client.builder().endpoints(clientPorts.stream().map(p -> "http://127.0.0.1:" + p).toArray(String[]::new))
                .build();
    }

    List<ServerProcess> members() {
        return members;
    }

    /** The member that is leader now, asked of the first live member. */
    ServerProcess leader() {
        for (int i = 0; i < members.size(); i++) {
            if (!members.get(i).isAlive()) {
                continue;
            }
            String endpoint = "http://127.0.0.1:" + clientPorts.get(i);
            try (Client client = Client.builder().endpoints(endpoint).build()) {
                StatusResponse status = client.getMaintenanceClient().statusMember(endpoint).get(5, TimeUnit.SECONDS);
                long leaderId = status.getLeader();
                for (int j = 0; j < members.size(); j++) {
                    String other = "http://127.0.0.1:" + clientPorts.get(j);
                    if (!members.get(j).isAlive()) {
                        continue;
                    }
                    StatusResponse otherStatus = j == i ? status
                            : client.getMaintenanceClient().statusMember(other).get(5, TimeUnit.SECONDS);
                    if (otherStatus.getHeader().getMemberId() == leaderId) {
                        return members.get(j);
                    }
                }
            } catch (Exception e) {
                if (e instanceof InterruptedException) {
                    Thread.currentThread().interrupt();
                }
                // try the next member
            }
        }
        throw new IllegalStateException("no etcd member knows a leader");
    }

    @Override
    public void close() {
        for (ServerProcess member : members) {
            member.close();
        }
        try (Stream<Path> files = Files.walk(dataDir)) {
            files.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
        } catch (IOException ignored) {
            // a temp directory: the OS cleans it eventually
        }
    }
}
