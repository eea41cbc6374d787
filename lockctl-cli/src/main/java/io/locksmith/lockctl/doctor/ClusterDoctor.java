package io.locksmith.lockctl.doctor;

import io.locksmith.LockStoreException;
import io.locksmith.spi.LockUri;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.exceptions.JedisConnectionException;
import redis.clients.jedis.exceptions.JedisDataException;

import java.time.Duration;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Redis Cluster checks for {@code redis-cluster://} URIs, read-only: the topology one seed node gives
 * ({@code CLUSTER NODES}), then every node it names at the address it announces ({@code natMap} is not read: doctor
 * maps no addresses on Sentinel either). Slot coverage, replicas per shard against {@code waitReplicas},
 * {@code cluster-node-timeout} against the lease, {@code cluster_state} of every node, slot migrations left open,
 * {@code WAIT}, and the single-node checks on every primary.
 */
final class ClusterDoctor {

    static final int SLOTS = 16_384;
    /**
     * What a failover adds to {@code cluster-node-timeout}: a replica waits 500 ms plus up to 500 ms at random
     * (plus 1 s per rank behind the best replica) before it asks the primaries for their votes.
     */
    static final long ELECTION_MILLIS = 1_000;
    private static final int MAX_RANGES_SHOWN = 8;

    private ClusterDoctor() {
    }

    /** One line of {@code CLUSTER NODES}. */
    record Node(String id, HostAndPort address, Set<String> flags, String primaryId, boolean connected,
                BitSet slots, List<String> migrations) {

        boolean primary() {
            return flags.contains("master");
        }

        /** Flagged {@code fail} by the cluster (a majority of primaries agreed), or suspected ({@code fail?}). */
        boolean failed() {
            return flags.contains("fail") || flags.contains("fail?");
        }

        /** Without an address or still joining: nothing to connect to. */
        boolean addressless() {
            return flags.contains("noaddr") || flags.contains("handshake") || address.getPort() == 0;
        }

        boolean myself() {
            return flags.contains("myself");
        }
    }

    /**
     * Parses {@code CLUSTER NODES}: {@code id ip:port@bus[,hostname] flags primary-id ping pong epoch link slot...},
     * where a slot is {@code n}, {@code from-to}, or, on the answering node's own line, {@code [n->-id]} (migrating
     * to id) or {@code [n-<-id]} (importing from id).
     */
    static List<Node> parseNodes(String clusterNodes) {
        List<Node> nodes = new ArrayList<>();
        for (String line : clusterNodes.split("\r?\n")) {
            String[] fields = line.strip().split(" ");
            if (fields.length < 8) {
                continue;
            }
            String address = fields[1];
            int at = address.indexOf('@');
            String hostPort = at < 0 ? address : address.substring(0, at);
            int colon = hostPort.lastIndexOf(':');
            String host = colon <= 0 ? "" : hostPort.substring(0, colon);
            if (host.startsWith("[") && host.endsWith("]")) {
                host = host.substring(1, host.length() - 1);
            }
            int port = colon < 0 ? 0 : Integer.parseInt(hostPort.substring(colon + 1));
            BitSet slots = new BitSet(SLOTS);
            List<String> migrations = new ArrayList<>();
            for (int i = 8; i < fields.length; i++) {
                String slot = fields[i];
                if (slot.startsWith("[")) {
                    migrations.add(slot.substring(1, slot.length() - 1));
                    continue;
                }
                int dash = slot.indexOf('-');
                int from = Integer.parseInt(dash < 0 ? slot : slot.substring(0, dash));
                int to = dash < 0 ? from : Integer.parseInt(slot.substring(dash + 1));
                slots.set(from, to + 1);
            }
            nodes.add(new Node(fields[0], new HostAndPort(host, port), Set.of(fields[2].split(",")),
                    fields[3].equals("-") ? null : fields[3], fields[7].equals("connected"), slots, migrations));
        }
        return nodes;
    }

    /** What one node answered, or why it did not. */
    private record NodeAnswers(String state, Long nodeTimeout, List<String> migrations, String waitRefusal,
                               String unreachable) {
    }

    static List<Finding> examine(LockUri uri, DefaultJedisClientConfig config, int waitReplicas, Duration lease,
                                 int defaultPort) {
        List<Finding> findings = new ArrayList<>();
        HostAndPort seed = null;
        List<Node> nodes = null;
        LockStoreException unreachable = null;
        List<String> notClusters = new ArrayList<>();
        for (LockUri.HostPort host : uri.hosts(defaultPort)) {
            HostAndPort address = new HostAndPort(host.host(), host.port());
            try (Jedis jedis = new Jedis(address, config)) {
                nodes = parseNodes(jedis.clusterNodes());
                seed = address;
                break;
            } catch (JedisConnectionException e) {
                unreachable = new LockStoreException("cannot reach any seed node of " + LockUri.redact(uri.raw())
                        + "; last: " + address + ": " + RedisDoctor.rootMessage(e), e);
            } catch (JedisDataException e) {
                notClusters.add(address + " (" + e.getMessage() + ")");
            }
        }
        if (nodes == null) {
            if (notClusters.isEmpty()) {
                throw unreachable;
            }
            findings.add(Finding.fail("redis cluster topology", "no seed answered CLUSTER NODES: "
                            + String.join("; ", notClusters),
                    "start the nodes with cluster-enabled yes, or use redis:// for a single Redis"));
            return findings;
        }
        Map<String, Node> byId = new LinkedHashMap<>();
        nodes.forEach(node -> byId.put(node.id(), node));
        List<Node> shards = nodes.stream().filter(node -> node.primary() && !node.slots().isEmpty())
                .sorted(Comparator.comparingInt(node -> node.slots().nextSetBit(0))).toList();
        long replicas = nodes.stream().filter(node -> !node.primary()).count();
        findings.add(Finding.ok("redis cluster topology", shards.size() + " primaries serving slots, " + replicas
                + " replica(s), " + nodes.size() + " node(s) in all, as " + seed + " sees them"));

        Map<Node, NodeAnswers> answers = new LinkedHashMap<>();
        for (Node node : nodes) {
            if (!node.addressless()) {
                answers.put(node, ask(node, config, !node.slots().isEmpty() && node.primary()));
            }
        }
        findings.addAll(reachability(answers));
        findings.add(stateFinding(nodes, answers));
        findings.add(coverageFinding(nodes));
        for (Node shard : shards) {
            List<Node> shardReplicas = nodes.stream().filter(node -> shard.id().equals(node.primaryId())).toList();
            findings.add(replicasFinding(shard, shardReplicas, waitReplicas));
        }
        findings.add(nodeTimeoutFinding(answers, waitReplicas, lease));
        findings.add(migrationFinding(answers, byId));
        findings.add(waitFinding(answers, waitReplicas));
        for (Node shard : shards) {
            NodeAnswers answer = answers.get(shard);
            if (answer != null && answer.unreachable() == null) {
                try {
                    findings.addAll(RedisDoctor.examineNode(shard.address(), config, waitReplicas));
                    findings.addAll(RedisDoctor.security(shard.address(), uri, config,
                            Duration.ofMillis(config.getSocketTimeoutMillis())));
                } catch (LockStoreException e) {
                    findings.add(Finding.fail("redis " + shard.address() + " reachable", e.getMessage(),
                            "start the node or fix its announced address"));
                }
            }
        }
        return findings;
    }

    private static NodeAnswers ask(Node node, DefaultJedisClientConfig config, boolean servesSlots) {
        try (Jedis jedis = new Jedis(node.address(), config)) {
            String state = RedisDoctor.parseInfo(jedis.clusterInfo()).getOrDefault("cluster_state", "?");
            Long nodeTimeout = null;
            try {
                nodeTimeout = Long.parseLong(jedis.configGet("cluster-node-timeout")
                        .getOrDefault("cluster-node-timeout", "15000"));
            } catch (JedisDataException e) {
                // CONFIG renamed or refused: the time-out finding says it cannot tell
            }
            List<String> migrations = List.of();
            String waitRefusal = null;
            if (servesSlots || node.primary()) {
                // Migrations in progress show on the node's own line only.
                migrations = parseNodes(jedis.clusterNodes()).stream().filter(Node::myself)
                        .flatMap(self -> self.migrations().stream()).toList();
                try {
                    jedis.waitReplicas(0, 0);
                } catch (JedisDataException e) {
                    waitRefusal = e.getMessage();
                }
            }
            return new NodeAnswers(state, nodeTimeout, migrations, waitRefusal, null);
        } catch (JedisConnectionException e) {
            return new NodeAnswers(null, null, List.of(), null, RedisDoctor.rootMessage(e));
        }
    }

    /** A node the cluster thinks is fine but this machine cannot reach: the clients here cannot either. */
    private static List<Finding> reachability(Map<Node, NodeAnswers> answers) {
        List<Finding> findings = new ArrayList<>();
        answers.forEach((node, answer) -> {
            if (answer.unreachable() == null || node.failed()) {
                return; // a failed node is reported with the cluster state
            }
            String check = "redis " + node.address() + " reachable";
            String detail = "cannot reach this " + (node.primary() ? "primary" : "replica") + " at the address the"
                    + " cluster announces (" + answer.unreachable() + ")";
            String fix = "let this machine reach the nodes' announced addresses (cluster-announce-ip/port); behind NAT"
                    + " the clients need natMap, which doctor does not read";
            findings.add(node.primary() && !node.slots().isEmpty()
                    ? Finding.fail(check, detail + ": the locks of slots " + ranges(node.slots())
                    + " cannot be taken or renewed from here", fix)
                    : Finding.warn(check, detail, fix));
        });
        return findings;
    }

    static Finding stateFinding(List<Node> nodes, Map<Node, NodeAnswers> answers) {
        String check = "redis cluster state";
        List<String> down = new ArrayList<>();
        int ok = 0;
        for (Map.Entry<Node, NodeAnswers> entry : answers.entrySet()) {
            String state = entry.getValue().state();
            if ("ok".equals(state)) {
                ok++;
            } else if (state != null) {
                down.add(entry.getKey().address() + " cluster_state:" + state);
            }
        }
        List<String> failed = nodes.stream().filter(Node::failed).map(node -> node.address() + " ("
                + (node.primary() ? "primary" : "replica") + ", " + (node.flags().contains("fail") ? "fail" : "fail?")
                + ")").toList();
        String detail = "cluster_state:ok on " + ok + " of " + answers.size() + " node(s) asked";
        if (!down.isEmpty()) {
            return Finding.fail(check, detail + "; " + String.join(", ", down) + ": such a node answers CLUSTERDOWN"
                            + " to every command, so no lock is taken or renewed through it"
                            + (failed.isEmpty() ? "" : "; flagged failed: " + String.join(", ", failed)),
                    "restore slot coverage (below) and a majority of reachable primaries; CLUSTER INFO on the node"
                            + " says why");
        }
        if (!failed.isEmpty()) {
            return Finding.warn(check, detail + "; flagged failed by the cluster: " + String.join(", ", failed),
                    "restart the failed node(s): a failed primary whose replica was promoted rejoins as its replica,"
                            + " or CLUSTER FORGET it on every node if it is gone for good");
        }
        return Finding.ok(check, detail);
    }

    /** Every slot must be served by a primary the cluster does not flag as failed. */
    static Finding coverageFinding(List<Node> nodes) {
        BitSet covered = new BitSet(SLOTS);
        for (Node node : nodes) {
            if (node.primary() && !node.flags().contains("fail")) {
                covered.or(node.slots());
            }
        }
        BitSet uncovered = new BitSet(SLOTS);
        uncovered.set(0, SLOTS);
        uncovered.andNot(covered);
        String check = "redis cluster slot coverage";
        if (uncovered.isEmpty()) {
            return Finding.ok(check, "all " + SLOTS + " slots served by a live primary");
        }
        return Finding.fail(check, uncovered.cardinality() + " of " + SLOTS + " slots served by no live primary ("
                        + ranges(uncovered) + "): no lock whose name hashes there can be taken or renewed",
                "bring the failed primary back or promote its replica (CLUSTER FAILOVER FORCE on it); assign unowned"
                        + " slots with redis-cli --cluster fix");
    }

    /**
     * Replicas of one shard against {@code waitReplicas}, as doctor judges a Sentinel group: every acquire and
     * renewal on the shard waits for that many of the primary's replicas, and after a failover the promoted
     * replica has one replica fewer.
     */
    static Finding replicasFinding(Node shard, List<Node> replicas, int waitReplicas) {
        String check = "redis cluster shard " + shard.address() + " (slots " + ranges(shard.slots()) + ") replicas";
        long healthy = replicas.stream().filter(node -> !node.failed() && node.connected()).count();
        String detail = healthy + " of " + replicas.size() + " replica(s) up";
        if (shard.flags().contains("fail")) {
            return Finding.fail(check, detail + "; the primary is flagged failed and no replica took its slots:"
                            + " see slot coverage",
                    "bring the primary back, or promote a replica (CLUSTER FAILOVER FORCE on it)");
        }
        if (waitReplicas == 0) {
            return Finding.warn(check, detail + "; waitReplicas=0, fenced only: a primary cut off from its replicas keeps"
                            + " renewing its holders' locks until cluster-node-timeout while a replica is promoted and"
                            + " grants them again, so two holders believe they hold the lock; only fencing tokens"
                            + " checked by the resource stop the stale writes",
                    "remove waitReplicas=0 from the URI (the default waits for one replica) and run 2 replicas per shard");
        }
        if (healthy < waitReplicas) {
            return Finding.fail(check, detail + ", waitReplicas=" + waitReplicas + ": WAIT " + waitReplicas + " can never"
                            + " be met, so no acquire or renewal of a name in these slots is acknowledged: nothing there"
                            + " can be locked",
                    "restart the shard's failed former primary (it rejoins as a replica) or add a replica (CLUSTER"
                            + " REPLICATE <primary-id> on a new node); or lower waitReplicas (0 is fenced only)");
        }
        if (healthy == waitReplicas) {
            String left = waitReplicas == 1 ? "no replica" : (healthy - 1) + " replica(s), fewer than waitReplicas,";
            return Finding.warn(check, detail + ", waitReplicas=" + waitReplicas + ": after a failover the promoted"
                            + " replica has " + left + " to acknowledge grants until another returns, so the shard's"
                            + " locks are unavailable (acquire and renew fail) meanwhile",
                    "add a replica (CLUSTER REPLICATE <primary-id> on a new node): " + (waitReplicas + 1)
                            + " replicas per shard keep locking through one failover");
        }
        return Finding.ok(check, detail + ", waitReplicas=" + waitReplicas + ": acquire and renew wait for "
                + waitReplicas + "; after a failover " + (healthy - 1) + " remain to acknowledge");
    }

    /**
     * {@code cluster-node-timeout} against the lease, as doctor compares Sentinel's {@code down-after-milliseconds}:
     * a failover takes the time-out plus the election, and all that time the shard's locks cannot be renewed.
     */
    static Finding nodeTimeoutFinding(Map<Node, NodeAnswers> answers, int waitReplicas, Duration lease) {
        String check = "redis cluster cluster-node-timeout";
        TreeMap<Long, List<String>> values = new TreeMap<>();
        answers.forEach((node, answer) -> {
            if (answer.nodeTimeout() != null) {
                values.computeIfAbsent(answer.nodeTimeout(), value -> new ArrayList<>()).add(node.address().toString());
            }
        });
        if (values.isEmpty()) {
            return Finding.warn(check, "CONFIG GET cluster-node-timeout answered on no node; cannot tell",
                    "check cluster-node-timeout against the lease (" + lease.toMillis() + " ms)");
        }
        return nodeTimeoutFinding(values.lastKey(), values.size() == 1 ? "" : " (nodes differ: " + values + ")",
                waitReplicas, lease);
    }

    static Finding nodeTimeoutFinding(long nodeTimeout, String note, int waitReplicas, Duration lease) {
        String check = "redis cluster cluster-node-timeout";
        long failover = nodeTimeout + ELECTION_MILLIS;
        String detail = "cluster-node-timeout " + nodeTimeout + " ms" + note + ", a failover about " + failover
                + " ms with the election, lease " + lease.toMillis() + " ms";
        if (failover < lease.toMillis()) {
            return Finding.ok(check, detail + ": a holder whose renewal reaches the promoted replica before its lease"
                    + " ends keeps its lock" + (waitReplicas == 0 ? " (only if that replica still has it)"
                    : " (the replica acknowledged it)") + ", the others lose it at their lease deadline");
        }
        if (waitReplicas == 0) {
            return Finding.warn(check, detail + ": by the time a replica is promoted its copies of the failed primary's"
                            + " locks have expired, so it grants them at once while their holders, cut off with the old"
                            + " primary, still hold them",
                    "wait for a replica (remove waitReplicas=0), and keep cluster-node-timeout well below the lease");
        }
        return Finding.warn(check, detail + ": a failover can take longer than the lease, so every holder of a lock on"
                        + " the failed shard loses it (renewals fail: STORE_UNREACHABLE) and its names cannot be locked"
                        + " until the replica is promoted",
                "lower cluster-node-timeout below the lease less " + ELECTION_MILLIS + " ms (CONFIG SET on every node and"
                        + " in redis.conf), or lengthen the lease (lease= in the URI)");
    }

    /** Slots left {@code MIGRATING}/{@code IMPORTING}: their acquires meet {@code TRYAGAIN} until it ends. */
    static Finding migrationFinding(Map<Node, NodeAnswers> answers, Map<String, Node> byId) {
        String check = "redis cluster slot migrations";
        List<String> seen = new ArrayList<>();
        answers.forEach((node, answer) -> {
            for (String migration : answer.migrations()) {
                int migrating = migration.indexOf("->-");
                int importing = migration.indexOf("-<-");
                if (migrating > 0) {
                    seen.add("slot " + migration.substring(0, migrating) + " MIGRATING on " + node.address() + " to "
                            + address(byId, migration.substring(migrating + 3)));
                } else if (importing > 0) {
                    seen.add("slot " + migration.substring(0, importing) + " IMPORTING on " + node.address() + " from "
                            + address(byId, migration.substring(importing + 3)));
                } else {
                    seen.add(migration + " on " + node.address());
                }
            }
        });
        if (seen.isEmpty()) {
            return Finding.ok(check, "none in progress");
        }
        return Finding.warn(check, String.join("; ", seen) + ": while a slot migrates, acquires of names in it are"
                        + " answered TRYAGAIN and fail within their bound (never granted); renewals keep working. A"
                        + " reshard moves a slot in milliseconds: one that stays is a move left half done",
                "finish the move (redis-cli --cluster fix, or MIGRATE the slot's keys and CLUSTER SETSLOT <slot> NODE"
                        + " <target-id> on both nodes), or cancel it with CLUSTER SETSLOT <slot> STABLE on both nodes");
    }

    private static String address(Map<String, Node> byId, String id) {
        Node node = byId.get(id);
        return node == null ? "unknown node " + id : node.address().toString();
    }

    /** {@code WAIT 0 0} on every primary that serves slots: a proxy or ACL that refuses it fails every lock call. */
    private static Finding waitFinding(Map<Node, NodeAnswers> answers, int waitReplicas) {
        String check = "redis cluster WAIT";
        List<String> refused = new ArrayList<>();
        int answered = 0;
        for (Map.Entry<Node, NodeAnswers> entry : answers.entrySet()) {
            Node node = entry.getKey();
            NodeAnswers answer = entry.getValue();
            if (!node.primary() || node.slots().isEmpty() || answer.unreachable() != null) {
                continue;
            }
            if (answer.waitRefusal() != null) {
                refused.add(node.address() + " (" + answer.waitRefusal() + ")");
            } else {
                answered++;
            }
        }
        if (refused.isEmpty()) {
            return Finding.ok(check, "WAIT 0 0 answered on " + answered + " primar" + (answered == 1 ? "y" : "ies")
                    + (waitReplicas > 0 ? "; acquire and renew wait for " + waitReplicas + " replica(s) with it"
                    : "; waitReplicas=0 does not use it"));
        }
        String detail = "WAIT refused on " + String.join(", ", refused);
        String fix = "connect to the Redis nodes themselves, not through a proxy that refuses WAIT, and allow WAIT in"
                + " the ACL of the URI's user";
        return waitReplicas > 0
                ? Finding.fail(check, detail + ": with waitReplicas=" + waitReplicas + " every acquire and renewal ends"
                + " with WAIT, so each fails there", fix)
                : Finding.warn(check, detail + ": waitReplicas=0 does not use it, but then a failover can forget a"
                + " grant (fenced only)", fix);
    }

    /** {@code 0-5460, 10923} for the set bits, the first {@value #MAX_RANGES_SHOWN} ranges and a count of the rest. */
    static String ranges(BitSet slots) {
        List<String> ranges = new ArrayList<>();
        int total = 0;
        for (int from = slots.nextSetBit(0); from >= 0; from = slots.nextSetBit(from)) {
            int to = slots.nextClearBit(from) - 1;
            total++;
            if (ranges.size() < MAX_RANGES_SHOWN) {
                ranges.add(from == to ? Integer.toString(from) : from + "-" + to);
            }
            from = to + 1;
        }
        String shown = String.join(", ", ranges);
        return total > ranges.size() ? shown + " and " + (total - ranges.size()) + " more range(s)" : shown;
    }
}
