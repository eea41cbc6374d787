package io.locksmith.tck.server;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * A Redis Cluster on loopback for tests: {@code primaries} redis-servers with {@code --cluster-enabled yes}, each
 * with {@code replicasPerPrimary} replicas, joined as {@code redis-cli --cluster create} joins them, ready once every
 * node reports {@code cluster_state:ok} and knows every other node. Persistence is off, but each node keeps its
 * {@code nodes.conf}, so a {@link ServerProcess#restart()}ed node rejoins as itself.
 *
 * <p>A short {@code cluster-node-timeout} (1 s by default) keeps failover tests short: a killed primary's replica is
 * promoted a second or two later. Everything here talks to the nodes in RESP over a socket ({@link #cli}), so that
 * this module needs no Redis client and starts no process per command.
 */
public final class RedisCluster implements AutoCloseable {

    /** The time-out after which a silent node is failed and its replica promoted ({@code cluster-node-timeout}). */
    public static final Duration DEFAULT_NODE_TIMEOUT = Duration.ofSeconds(1);
    private static final Duration READY_TIMEOUT = Duration.ofSeconds(60);

    private final List<ServerProcess> nodes;
    /** Each node's cluster bus port, in the order of {@link #nodes}. */
    private final List<Integer> busPorts;
    private final Duration nodeTimeout;
    /** Each node's TLS port, in the order of {@link #nodes}; empty for a cluster without TLS. */
    private final List<Integer> tlsPorts = new ArrayList<>();

    private RedisCluster(List<ServerProcess> nodes, List<Integer> busPorts, Duration nodeTimeout) {
        this.nodes = nodes;
        this.busPorts = busPorts;
        this.nodeTimeout = nodeTimeout;
    }

    /** The port of {@code node}'s cluster bus, where the nodes gossip and vote (a partition test cuts it too). */
    public int busPort(ServerProcess node) {
        int index = nodes.indexOf(node);
        if (index < 0) {
            throw new IllegalArgumentException(node + " is not a node of " + this);
        }
        return busPorts.get(index);
    }

    /** Three primaries with one replica each, the smallest cluster in which a failover keeps every slot served. */
    public static RedisCluster start() {
        return start(3, 1, DEFAULT_NODE_TIMEOUT, SlotLayout.EVEN);
    }

    /** How the 16,384 slots are spread over the primaries. */
    public enum SlotLayout {
        /** In equal ranges, as {@code redis-cli --cluster create} spreads them: names fall on every shard. */
        EVEN,
        /**
         * Every slot but one per other primary on the first primary: practically every lock name is on the first
         * shard, so a test that kills "the primary" kills the one its locks are on, while the other primaries, each
         * serving a slot, still vote for the promotion of its replica (a promotion needs a majority of the primaries
         * that serve slots).
         */
        FIRST_SHARD
    }

    /**
     * A cluster of {@code primaries} (at least 3, the fewest that elect a replica when one dies) with
     * {@code replicasPerPrimary} replicas each, its slots spread as {@code layout} says. Built as
     * {@code redis-cli --cluster create} builds one: slots assigned, a distinct config epoch per node,
     * {@code CLUSTER MEET}, then each replica told its primary.
     */
    public static RedisCluster start(int primaries, int replicasPerPrimary, Duration nodeTimeout, SlotLayout layout) {
        return start(primaries, replicasPerPrimary, nodeTimeout, layout, null);
    }

    /**
     * Three primaries with one replica each, as {@link #start()}, whose clients, replication and cluster bus use TLS
     * with the certificates of {@code certificates} ({@code --tls-cluster yes --tls-replication yes}): the nodes
     * announce their TLS ports to clients that connect with TLS, so a client given {@link #tlsUri()} uses TLS to
     * every node. Each node also keeps a plain port on loopback, its {@link ServerProcess#port()}, for this
     * harness's own commands ({@link #cli}) only. The nodes present their server certificate to each other on the
     * bus, where Redis always asks for one, so it must allow client authentication too:
     * {@code TestCertificates.createFor(name, "DNS:localhost,IP:127.0.0.1", "serverAuth,clientAuth")}.
     */
    public static RedisCluster startWithTls(TestCertificates certificates) {
        return start(3, 1, DEFAULT_NODE_TIMEOUT, SlotLayout.EVEN, certificates);
    }

    private static RedisCluster start(int primaries, int replicasPerPrimary, Duration nodeTimeout, SlotLayout layout,
                                      TestCertificates certificates) {
        if (primaries < 3) {
            throw new IllegalArgumentException("a Redis Cluster needs at least 3 primaries, was " + primaries);
        }
        if (replicasPerPrimary < 0) {
            throw new IllegalArgumentException("replicasPerPrimary must not be negative, was " + replicasPerPrimary);
        }
        List<ServerProcess> nodes = new ArrayList<>();
        List<Integer> busPorts = new ArrayList<>();
        RedisCluster cluster = new RedisCluster(nodes, busPorts, nodeTimeout);
        try {
            for (int i = 0; i < primaries * (1 + replicasPerPrimary); i++) {
                // The bus port on a free port of its own: the default, port + 10000, may be taken or past 65535.
                int busPort = FreePorts.next();
                busPorts.add(busPort);
                List<String> args = new ArrayList<>(List.of("--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf",
                        "--cluster-port", Integer.toString(busPort),
                        "--cluster-node-timeout", Long.toString(nodeTimeout.toMillis()),
                        // A cluster missing a shard still serves the others' slots: a kill test sees one shard go.
                        "--cluster-require-full-coverage", "no"));
                if (certificates != null) {
                    int tlsPort = FreePorts.next();
                    cluster.tlsPorts.add(tlsPort);
                    args.addAll(List.of("--tls-port", Integer.toString(tlsPort), "--tls-cluster", "yes"));
                    args.addAll(StoreServers.redisTlsArgs(certificates));
                }
                nodes.add(StoreServers.redis(args.toArray(String[]::new)));
            }
            int[] firstSlots = firstSlots(primaries, layout);
            for (int p = 0; p < primaries; p++) {
                int last = p + 1 < primaries ? firstSlots[p + 1] - 1 : SLOTS - 1;
                requireOk(cluster.cli(nodes.get(p), "cluster", "addslotsrange", Integer.toString(firstSlots[p]),
                        Integer.toString(last)));
            }
            for (int i = 0; i < nodes.size(); i++) {
                requireOk(cluster.cli(nodes.get(i), "cluster", "set-config-epoch", Integer.toString(i + 1)));
            }
            for (int i = 1; i < nodes.size(); i++) {
                requireOk(cluster.cli(nodes.get(i), "cluster", "meet", "127.0.0.1",
                        Integer.toString(nodes.get(0).port()), Integer.toString(busPorts.get(0))));
            }
            cluster.awaitState("every node knowing every other", () -> cluster.everyNode(info ->
                    info.contains("cluster_known_nodes:" + nodes.size()), "cluster", "info"));
            for (int r = 0; r < primaries * replicasPerPrimary; r++) {
                ServerProcess primary = nodes.get(r % primaries);
                ServerProcess replica = nodes.get(primaries + r);
                String primaryId = cluster.nodeId(primary);
                // The replica learns of the primary's id by gossip a moment after MEET: asked until it knows it.
                cluster.awaitState(replica + " replicating " + primary, () -> {
                    try {
                        return cluster.cli(replica, "cluster", "replicate", primaryId).strip().equals("OK");
                    } catch (IllegalStateException e) {
                        return false;
                    }
                });
            }
            cluster.awaitReady();
            return cluster;
        } catch (RuntimeException | Error e) {
            cluster.close();
            throw e;
        }
    }

    private static final int SLOTS = 16_384;

    /** The first slot of each primary's range. */
    private static int[] firstSlots(int primaries, SlotLayout layout) {
        int[] first = new int[primaries];
        for (int p = 1; p < primaries; p++) {
            first[p] = layout == SlotLayout.EVEN ? SLOTS * p / primaries : SLOTS - primaries + p;
        }
        return first;
    }

    private boolean everyNode(java.util.function.Predicate<String> check, String... command) {
        for (ServerProcess node : nodes) {
            if (node.isAlive() && !check.test(cli(node, command))) {
                return false;
            }
        }
        return true;
    }

    private void awaitState(String what, java.util.function.BooleanSupplier state) {
        long deadline = System.nanoTime() + READY_TIMEOUT.toNanos();
        while (!state.getAsBoolean()) {
            if (System.nanoTime() - deadline >= 0) {
                throw new IllegalStateException("the Redis Cluster did not reach this state within "
                        + READY_TIMEOUT.toSeconds() + " s: " + what);
            }
            pause();
        }
    }

    /** Waits until every live node reports {@code cluster_state:ok} and every replica is in sync with its primary. */
    public void awaitReady() {
        long deadline = System.nanoTime() + READY_TIMEOUT.toNanos();
        String last = "";
        while (System.nanoTime() - deadline < 0) {
            boolean ready = true;
            for (ServerProcess node : nodes) {
                if (!node.isAlive()) {
                    continue;
                }
                String info = cli(node, "cluster", "info");
                String replication = cli(node, "info", "replication");
                last = node + ": " + info.lines().filter(line -> line.startsWith("cluster_state")
                        || line.startsWith("cluster_known_nodes")).toList() + " " + replication.lines()
                        .filter(line -> line.startsWith("role") || line.startsWith("master_link_status")).toList();
                if (!info.contains("cluster_state:ok")
                        || !info.contains("cluster_known_nodes:" + nodes.size())
                        || (replication.contains("role:slave") && !replication.contains("master_link_status:up"))) {
                    ready = false;
                    break;
                }
            }
            if (ready) {
                return;
            }
            pause();
        }
        throw new IllegalStateException("the Redis Cluster was not ready within " + READY_TIMEOUT.toSeconds()
                + " s; last seen: " + last);
    }

    /** The URI of the cluster for Locksmith, naming every node as a seed. */
    public String uri() {
        StringBuilder uri = new StringBuilder("redis-cluster://");
        for (int i = 0; i < nodes.size(); i++) {
            uri.append(i == 0 ? "" : ",").append("127.0.0.1:").append(nodes.get(i).port());
        }
        return uri.toString();
    }

    /**
     * The URI of a cluster started {@link #startWithTls with TLS}, naming every node's TLS port as a seed:
     * {@code rediss-cluster://...}, parameters not included.
     *
     * @throws IllegalStateException if the cluster has no TLS
     */
    public String tlsUri() {
        if (tlsPorts.isEmpty()) {
            throw new IllegalStateException("this cluster was started without TLS");
        }
        StringBuilder uri = new StringBuilder("rediss-cluster://");
        for (int i = 0; i < tlsPorts.size(); i++) {
            uri.append(i == 0 ? "" : ",").append("127.0.0.1:").append(tlsPorts.get(i));
        }
        return uri.toString();
    }

    /** Every node, primaries and replicas, in the order they were started. */
    public List<ServerProcess> nodes() {
        return List.copyOf(nodes);
    }

    /** The live node that serves {@code slot} now as primary, as the live nodes' slot maps say. */
    public ServerProcess primaryOf(int slot) {
        for (ServerProcess node : nodes) {
            if (node.isAlive() && cli(node, "info", "replication").contains("role:master")
                    && servesSlot(node, slot)) {
                return node;
            }
        }
        throw new IllegalStateException("no live primary serves slot " + slot);
    }

    /**
     * The primary of every slot (index: slot) as one live node's slot map says, read once: for a test that asks
     * about many slots at a time. Null where that map has no primary for a slot.
     */
    public ServerProcess[] slotOwners() {
        ServerProcess[] owners = new ServerProcess[SLOTS];
        ServerProcess reader = nodes.stream().filter(ServerProcess::isAlive).findFirst()
                .orElseThrow(() -> new IllegalStateException("no live node"));
        for (String line : cli(reader, "cluster", "nodes").lines().toList()) {
            String[] fields = line.split(" ");
            if (fields.length < 9 || !fields[2].contains("master") || fields[2].contains("fail")) {
                continue;
            }
            int port = Integer.parseInt(fields[1].substring(fields[1].lastIndexOf(':') + 1, fields[1].indexOf('@')));
            ServerProcess owner = node(port).orElse(null);
            for (int i = 8; i < fields.length; i++) {
                if (fields[i].startsWith("[")) {
                    continue; // a migration in progress, not a slot served
                }
                int dash = fields[i].indexOf('-');
                int from = Integer.parseInt(dash < 0 ? fields[i] : fields[i].substring(0, dash));
                int to = dash < 0 ? from : Integer.parseInt(fields[i].substring(dash + 1));
                for (int slot = from; slot <= to; slot++) {
                    owners[slot] = owner;
                }
            }
        }
        return owners;
    }

    /** The live replicas of {@code primary}. */
    public List<ServerProcess> replicasOf(ServerProcess primary) {
        List<ServerProcess> replicas = new ArrayList<>();
        for (ServerProcess node : nodes) {
            if (node != primary && node.isAlive()
                    && cli(node, "info", "replication").contains("master_port:" + primary.port())) {
                replicas.add(node);
            }
        }
        return replicas;
    }

    /** The node's cluster id ({@code CLUSTER MYID}). */
    public String nodeId(ServerProcess node) {
        return cli(node, "cluster", "myid").strip();
    }

    /**
     * Moves {@code slot}, keys and all, from its primary to {@code target} as {@code redis-cli --cluster reshard}
     * does: {@code IMPORTING} on the target, {@code MIGRATING} on the source, {@code MIGRATE} of every key in the
     * slot, then {@code SETSLOT NODE} on both and on every other primary. Between the steps a client is redirected
     * with {@code ASK} or answered {@code TRYAGAIN}; a key written meanwhile follows with the next batch.
     *
     * @param betweenSteps run after the slot is marked migrating and before its keys move (a test's hook for
     *                     "during the migration"); may be a no-op
     */
    public void moveSlot(int slot, ServerProcess target, Runnable betweenSteps) {
        ServerProcess source = primaryOf(slot);
        if (source == target) {
            throw new IllegalArgumentException("slot " + slot + " is already on " + target);
        }
        String sourceId = nodeId(source);
        String targetId = nodeId(target);
        requireOk(cli(target, "cluster", "setslot", Integer.toString(slot), "importing", sourceId));
        requireOk(cli(source, "cluster", "setslot", Integer.toString(slot), "migrating", targetId));
        betweenSteps.run();
        while (true) {
            List<String> keys = cli(source, "cluster", "getkeysinslot", Integer.toString(slot), "100").lines()
                    .filter(line -> !line.isBlank()).toList();
            if (keys.isEmpty()) {
                break;
            }
            List<String> migrate = new ArrayList<>(List.of("migrate", "127.0.0.1", Integer.toString(target.port()),
                    "", "0", "5000", "replace", "keys"));
            migrate.addAll(keys);
            String answer = cli(source, migrate.toArray(new String[0]));
            if (!answer.strip().equals("OK") && !answer.strip().equals("NOKEY")) {
                throw new IllegalStateException("MIGRATE of slot " + slot + " from " + source + " to " + target
                        + " answered " + answer);
            }
        }
        requireOk(cli(target, "cluster", "setslot", Integer.toString(slot), "node", targetId));
        requireOk(cli(source, "cluster", "setslot", Integer.toString(slot), "node", targetId));
        for (ServerProcess node : nodes) {
            if (node != source && node != target && node.isAlive()
                    && cli(node, "info", "replication").contains("role:master")) {
                cli(node, "cluster", "setslot", Integer.toString(slot), "node", targetId);
            }
        }
    }

    /** The live primary that does not serve {@code slot}, the first one started. */
    public ServerProcess otherPrimary(int slot) {
        ServerProcess owner = primaryOf(slot);
        for (ServerProcess node : nodes) {
            if (node != owner && node.isAlive() && cli(node, "info", "replication").contains("role:master")) {
                return node;
            }
        }
        throw new IllegalStateException("no other live primary than " + owner);
    }

    /** Waits until a live node serves {@code slot} as primary and the cluster is ok again (after a kill). */
    public ServerProcess awaitPrimaryOf(int slot, ServerProcess notThis) {
        long deadline = System.nanoTime() + READY_TIMEOUT.toNanos();
        while (System.nanoTime() - deadline < 0) {
            try {
                ServerProcess primary = primaryOf(slot);
                if (primary != notThis && cli(primary, "cluster", "info").contains("cluster_state:ok")) {
                    return primary;
                }
            } catch (IllegalStateException e) {
                // not yet
            }
            pause();
        }
        throw new IllegalStateException("no node took over slot " + slot + " within " + READY_TIMEOUT.toSeconds()
                + " s (cluster-node-timeout " + nodeTimeout.toMillis() + " ms)");
    }

    /**
     * One command on {@code node}, its reply as {@code redis-cli --raw} prints it: a status, bulk string or integer as
     * text, an array one element per line. Spoken over a socket rather than by starting {@code redis-cli}: the cluster
     * is polled every 50 ms while it forms or fails over, and a process per command loaded a 2-core machine.
     *
     * @throws IllegalStateException if the node answers with an error or cannot be reached within 10 s
     */
    public String cli(ServerProcess node, String... args) {
        try (java.net.Socket socket = new java.net.Socket()) {
            socket.connect(new java.net.InetSocketAddress("127.0.0.1", node.port()), 10_000);
            socket.setSoTimeout(10_000);
            java.io.OutputStream out = new java.io.BufferedOutputStream(socket.getOutputStream());
            StringBuilder request = new StringBuilder("*").append(args.length).append("\r\n");
            for (String arg : args) {
                byte[] bytes = arg.getBytes(StandardCharsets.UTF_8);
                request.append('$').append(bytes.length).append("\r\n").append(arg).append("\r\n");
            }
            out.write(request.toString().getBytes(StandardCharsets.UTF_8));
            out.flush();
            java.io.DataInputStream in = new java.io.DataInputStream(new java.io.BufferedInputStream(socket.getInputStream()));
            StringBuilder reply = new StringBuilder();
            readReply(in, reply, node, args);
            return reply.toString();
        } catch (IOException e) {
            throw new IllegalStateException(node + " did not answer " + String.join(" ", args) + ": " + e, e);
        }
    }

    /** Appends one RESP reply in redis-cli's raw form (array elements on lines of their own). */
    private static void readReply(java.io.DataInputStream in, StringBuilder reply, ServerProcess node, String[] args)
            throws IOException {
        String line = readLine(in);
        char type = line.charAt(0);
        String rest = line.substring(1);
        switch (type) {
            case '+', ':' -> reply.append(rest).append('\n');
            case '-' -> throw new IllegalStateException(node + " answered " + String.join(" ", args) + " with " + rest);
            case '$' -> {
                int length = Integer.parseInt(rest);
                if (length >= 0) {
                    byte[] bytes = new byte[length + 2];
                    in.readFully(bytes);
                    reply.append(new String(bytes, 0, length, StandardCharsets.UTF_8)).append('\n');
                }
            }
            case '*' -> {
                int count = Integer.parseInt(rest);
                for (int i = 0; i < count; i++) {
                    readReply(in, reply, node, args);
                }
            }
            default -> throw new IllegalStateException(node + " answered " + String.join(" ", args) + " with '" + line + "'");
        }
    }

    private static String readLine(java.io.DataInputStream in) throws IOException {
        StringBuilder line = new StringBuilder();
        int previous = -1;
        while (true) {
            int next = in.read();
            if (next < 0) {
                throw new java.io.EOFException("the connection closed mid-reply");
            }
            if (previous == '\r' && next == '\n') {
                line.setLength(line.length() - 1);
                return line.toString();
            }
            line.append((char) next);
            previous = next;
        }
    }

    private boolean servesSlot(ServerProcess node, int slot) {
        String myId = nodeId(node);
        for (String line : cli(node, "cluster", "nodes").lines().toList()) {
            String[] fields = line.split(" ");
            if (fields.length < 9 || !fields[0].equals(myId)) {
                continue;
            }
            for (int i = 8; i < fields.length; i++) {
                String range = fields[i];
                if (range.startsWith("[")) {
                    continue; // a migration in progress, not a slot served
                }
                int dash = range.indexOf('-');
                int from = Integer.parseInt(dash < 0 ? range : range.substring(0, dash));
                int to = dash < 0 ? from : Integer.parseInt(range.substring(dash + 1));
                if (slot >= from && slot <= to) {
                    return true;
                }
            }
        }
        return false;
    }

    private static void requireOk(String answer) {
        if (!answer.strip().equals("OK")) {
            throw new IllegalStateException("the node answered " + answer);
        }
    }

    private static void pause() {
        try {
            Thread.sleep(50); // polling servers started by another process: there is no event to await
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for the Redis Cluster", e);
        }
    }

    /** A node by port, if it is one of this cluster's. */
    public Optional<ServerProcess> node(int port) {
        return nodes.stream().filter(node -> node.port() == port).findFirst();
    }

    @Override
    public void close() {
        for (ServerProcess node : nodes) {
            try {
                node.close();
            } catch (RuntimeException e) {
                // close the others anyway
            }
        }
    }

    @Override
    public String toString() {
        return uri();
    }
}
