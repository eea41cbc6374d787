package io.locksmith.lockctl.doctor;

import io.locksmith.LockStoreException;
import io.locksmith.spi.LockUri;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import io.locksmith.zookeeper.ZooKeeperClientSettings;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.data.ACL;
import org.apache.curator.retry.RetryOneTime;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Optional;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * ZooKeeper checks, read-only: connection and negotiated session timeout (with Curator), ensemble size
 * (from the ensemble's config, else the connect string), each server's mode and latency through the
 * {@code srvr}/{@code mntr} four-letter words, which servers may not allow, and the server's timing ({@code conf}:
 * {@code tickTime x syncLimit}, how long a follower cut from the leader keeps serving stale reads) against the
 * session timeout.
 */
final class ZooKeeperDoctor implements StoreDoctor {

    private static final int DEFAULT_PORT = 2181;
    /** The backend's default, so the negotiated timeout shown is the one locks will get. */
    private static final Duration DEFAULT_SESSION_TIMEOUT = Duration.ofSeconds(15);

    @Override
    public Set<String> schemes() {
        return Set.of("zookeeper", "zk");
    }

    @Override
    public List<Finding> examine(LockUri uri, Duration timeout) {
        List<LockUri.HostPort> hosts = uri.hosts(DEFAULT_PORT);
        String connectString = hosts.stream().map(LockUri.HostPort::toString).collect(Collectors.joining(","));
        Duration requested = uri.duration("sessionTimeout", DEFAULT_SESSION_TIMEOUT);
        List<Finding> findings = new ArrayList<>();
        int ensembleSize;
        int negotiated = -1;
        boolean tls = ZooKeeperClientSettings.usesTls(uri);
        CuratorFrameworkFactory.Builder builder = CuratorFrameworkFactory.builder().connectString(connectString)
                .sessionTimeoutMs((int) requested.toMillis()).connectionTimeoutMs((int) timeout.toMillis())
                .retryPolicy(new RetryOneTime(100)).zkClientConfig(ZooKeeperClientSettings.clientConfig(uri));
        ZooKeeperClientSettings.digestAuth(uri).ifPresent(auth -> builder.authorization("digest", auth));
        try (CuratorFramework curator = builder.build()) {
            curator.start();
            long start = System.nanoTime();
            boolean connected = curator.blockUntilConnected((int) timeout.toMillis(), TimeUnit.MILLISECONDS);
            if (!connected) {
                throw new LockStoreException("cannot reach zookeeper at " + connectString + " within " + timeout.toMillis()
                        + " ms", null);
            }
            findings.add(Finding.ok("zookeeper connect", "connected to " + connectString + " in "
                    + Millis.of(System.nanoTime() - start)));
            findings.add(sessionTimeout(curator, requested));
            try {
                negotiated = curator.getZookeeperClient().getZooKeeper().getSessionTimeout();
            } catch (Exception e) {
                negotiated = -1; // reported by the session timeout finding
            }
            ensembleSize = ensembleSize(curator, hosts.size(), findings);
            findings.add(security(curator, uri, tls));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new LockStoreException("interrupted while connecting to zookeeper at " + connectString, e);
        }
        if (tls) {
            findings.add(Finding.warn("zookeeper servers", "not examined: doctor reads the servers' mode, latency and"
                    + " timing with four-letter words over plain TCP, which a server listening with TLS does not answer",
                    "run doctor against a plain clientPort reachable only from the operators' network, or read srvr and"
                    + " conf on the servers"));
            return findings;
        }
        List<String> modes = new ArrayList<>();
        for (LockUri.HostPort host : hosts) {
            findings.add(serverState(host, timeout, modes));
        }
        findings.add(quorum(modes, ensembleSize, hosts.size()));
        findings.add(timing(hosts, timeout, negotiated));
        return findings;
    }

    /**
     * Who can take or free the locks under the base path: TLS, the client's identity, and the base path's ACL (a
     * client of another identity cannot read it, which says enough).
     */
    static Finding security(CuratorFramework curator, LockUri uri, boolean tls) {
        String check = "zookeeper security";
        String base = ZooKeeperClientSettings.basePath(uri);
        Optional<String> me = ZooKeeperClientSettings.digestId(uri);
        String identity = me.map(id -> "digest user '" + id.split(":", 2)[0] + "'").orElse("no authentication");
        String transport = tls ? "TLS" : "plain TCP";
        List<ACL> acl;
        try {
            acl = curator.getACL().forPath(base);
        } catch (KeeperException.NoNodeException e) {
            acl = null;
        } catch (KeeperException.NoAuthException e) {
            return Finding.fail(check, transport + ", " + identity + ": the base path " + base + " belongs to another"
                    + " identity (NOAUTH): this client cannot take its locks", "check the URI's user and password, or"
                    + " give this application a base path of its own");
        } catch (Exception e) {
            return Finding.warn(check, transport + ", " + identity + ": cannot read the ACL of " + base + ": "
                    + e.getMessage(), "");
        }
        boolean open = acl == null ? me.isEmpty() : acl.stream().anyMatch(entry -> entry.getId().getScheme()
                .equals("world") && (entry.getPerms() & (ZooDefs.Perms.DELETE | ZooDefs.Perms.CREATE)) != 0);
        String aclText = acl == null ? "not created yet (" + (me.isEmpty() ? "it will be open to anyone"
                : "it will be the user's alone") + ")" : acl.stream().map(entry -> entry.getId().getScheme()
                + (entry.getId().getScheme().equals("digest") ? " '" + entry.getId().getId().split(":", 2)[0] + "'"
                : ":" + entry.getId().getId())).collect(Collectors.joining(", "));
        String detail = transport + ", " + identity + ", ACL of " + base + ": " + aclText;
        if (open) {
            return Finding.warn(check, detail + ": any client that reaches the ensemble can delete a held lock's node,"
                    + " which frees it for the next waiter", "give the URI user:password@ (ZooKeeper digest) and a new"
                    + " base path: every node Locksmith makes is then that user's alone (SECURITY.md)");
        }
        if (!tls) {
            return Finding.warn(check, detail + ": the digest password and the holders travel in clear text",
                    "tls=true&trustStore=<CA PEM> against the servers' secureClientPort (ZOOKEEPER.md, TLS)");
        }
        return Finding.ok(check, detail);
    }

    /**
     * The server's {@code tickTime x syncLimit} against the negotiated session timeout. A follower cut from the
     * leader keeps answering reads and pings from its stale state for {@code syncLimit x tickTime}; the leader may
     * expire the session after the session timeout. The backend therefore counts a lock as held only as long as
     * answers through the leader prove the session alive, which assumes the leader hears of a follower's
     * sessions every {@code tickTime / 2 <= sessionTimeout / 4}, true when the session is at least two ticks
     * (ZooKeeper's default {@code minSessionTimeout}).
     */
    static Finding timing(List<LockUri.HostPort> hosts, Duration timeout, int negotiatedMillis) {
        String check = "zookeeper timing";
        Map<String, String> conf = null;
        for (LockUri.HostPort host : hosts) {
            try {
                String reply = fourLetterWord(host, "conf", timeout);
                if (reply.contains("tickTime=")) {
                    conf = parseConf(reply);
                    break;
                }
            } catch (IOException e) {
                // try the next server
            }
        }
        if (conf == null) {
            return Finding.warn(check, "cannot read tickTime and syncLimit: the conf four-letter word is disabled or"
                    + " no server answers", "add conf to 4lw.commands.whitelist in zoo.cfg to let doctor check them");
        }
        long tick = (long) parseDouble(conf.getOrDefault("tickTime", "0"));
        long syncLimit = (long) parseDouble(conf.getOrDefault("syncLimit", "0"));
        String detail = syncLimit == 0
                ? "tickTime " + tick + " ms (standalone: no follower serves stale reads), session timeout "
                        + negotiatedMillis + " ms"
                : "tickTime " + tick + " ms x syncLimit " + syncLimit + " = " + tick * syncLimit + " ms (a follower cut"
                        + " from the leader serves stale reads this long), session timeout " + negotiatedMillis + " ms";
        if (tick <= 0 || negotiatedMillis <= 0) {
            return Finding.warn(check, detail, "");
        }
        if (negotiatedMillis < 2 * tick) {
            return Finding.fail(check, detail + ": a session shorter than two ticks (minSessionTimeout lowered) breaks"
                    + " the backend's proof that the session is alive at the leader; a holder could be told after"
                    + " another client was granted its lock", "raise sessionTimeout= to at least " + 2 * tick
                    + " ms, or minSessionTimeout on the servers back to its default of two ticks");
        }
        if (negotiatedMillis <= tick * syncLimit) {
            return Finding.ok(check, detail + ": shorter than the stale-read window, so a holder on a cut-off follower"
                    + " is told by the backend's proof through the leader, before the session can expire");
        }
        return Finding.ok(check, detail);
    }

    private static Map<String, String> parseConf(String reply) {
        Map<String, String> fields = new LinkedHashMap<>();
        for (String line : reply.split("\r?\n")) {
            int equals = line.indexOf('=');
            if (equals > 0) {
                fields.put(line.substring(0, equals).trim(), line.substring(equals + 1).trim());
            }
        }
        return fields;
    }

    private static Finding sessionTimeout(CuratorFramework curator, Duration requested) {
        int negotiated;
        try {
            negotiated = curator.getZookeeperClient().getZooKeeper().getSessionTimeout();
        } catch (Exception e) {
            return Finding.warn("zookeeper session timeout", "cannot read it: " + e.getMessage(), "");
        }
        String detail = "negotiated " + negotiated + " ms (asked " + requested.toMillis() + " ms): a dead holder keeps "
                + "its locks this long";
        if (negotiated != requested.toMillis()) {
            return Finding.warn("zookeeper session timeout", detail + "; the server clamped the request to its "
                    + "min/maxSessionTimeout", "set sessionTimeout= in the URI within the server's bounds (2 to 20 ticks "
                    + "by default), or change minSessionTimeout/maxSessionTimeout on the servers");
        }
        if (negotiated > 60_000) {
            return Finding.warn("zookeeper session timeout", detail, "a shorter session (10-30 s) frees a crashed "
                    + "holder's locks sooner");
        }
        return Finding.ok("zookeeper session timeout", detail);
    }

    private static int ensembleSize(CuratorFramework curator, int hostsInUri, List<Finding> findings) {
        int size = 0;
        String source;
        try {
            String config = new String(curator.getConfig().forEnsemble(), StandardCharsets.UTF_8);
            size = (int) config.lines().filter(line -> line.startsWith("server.")).count();
            source = "from the ensemble's config";
        } catch (Exception e) {
            source = "";
        }
        if (size == 0) {
            size = hostsInUri;
            source = "from the connect string (the ensemble's config is not readable)";
        }
        String check = "zookeeper ensemble";
        String detail = size + " server(s), " + source;
        if (size == 1) {
            findings.add(Finding.warn(check, detail + ": standalone, no fault tolerance",
                    "run 3 or 5 servers for production locks"));
        } else if (size % 2 == 0) {
            findings.add(Finding.warn(check, detail + ": an even ensemble tolerates no more failures than one server fewer",
                    "run an odd number of servers (3 or 5)"));
        } else {
            findings.add(Finding.ok(check, detail + ", tolerates " + (size - 1) / 2 + " failure(s)"));
        }
        return size;
    }

    private static Finding serverState(LockUri.HostPort host, Duration timeout, List<String> modes) {
        String check = "zookeeper " + host + " srvr";
        String srvr;
        try {
            srvr = fourLetterWord(host, "srvr", timeout);
        } catch (IOException e) {
            modes.add("unreachable");
            return Finding.fail(check, "cannot reach " + host + ": " + e.getMessage(), "start the server or fix the address");
        }
        if (srvr.contains("not in the whitelist") || srvr.contains("not executed") || srvr.isBlank()) {
            modes.add("unknown");
            return Finding.warn(check, "four-letter words are disabled on this server; mode and latency unknown",
                    "add 4lw.commands.whitelist=srvr,mntr,ruok to zoo.cfg to let doctor see them");
        }
        Map<String, String> fields = parseFourLetterReply(srvr);
        String mode = fields.getOrDefault("Mode", "unknown");
        modes.add(mode);
        String latency = fields.getOrDefault("Latency min/avg/max", "?");
        String detail = "mode " + mode + ", latency min/avg/max " + latency + " ms, outstanding "
                + fields.getOrDefault("Outstanding", "?") + ", version " + fields.getOrDefault("Zookeeper version", "?")
                .split("[,-]")[0];
        String[] latencies = latency.split("/");
        if (latencies.length == 3 && parseDouble(latencies[1]) > 50) {
            return Finding.warn(check, detail, "average request latency above 50 ms: check disk (fsync of the "
                    + "transaction log) and GC on the servers");
        }
        return Finding.ok(check, detail);
    }

    private static Finding quorum(List<String> modes, int ensembleSize, int hostsInUri) {
        long leaders = modes.stream().filter("leader"::equals).count();
        long followers = modes.stream().filter("follower"::equals).count();
        long standalone = modes.stream().filter("standalone"::equals).count();
        long unknown = modes.stream().filter(mode -> mode.equals("unknown")).count();
        String detail = leaders + " leader, " + followers + " follower(s), " + standalone + " standalone, "
                + unknown + " unknown, of " + hostsInUri + " server(s) in the URI";
        if (standalone == modes.size() && standalone > 0) {
            return Finding.ok("zookeeper quorum", detail + " (standalone server)");
        }
        if (unknown == modes.size()) {
            return Finding.warn("zookeeper quorum", "cannot tell: four-letter words disabled",
                    "add 4lw.commands.whitelist=srvr,mntr,ruok to zoo.cfg");
        }
        if (leaders > 1) {
            return Finding.fail("zookeeper quorum", detail + ": more than one leader answers: the URI mixes ensembles",
                    "list the servers of one ensemble only");
        }
        if (leaders == 0 && unknown == 0) {
            return Finding.fail("zookeeper quorum", detail + ": no leader, so no quorum: locks cannot be taken",
                    "bring a majority of the ensemble back");
        }
        if (leaders + followers <= ensembleSize / 2 && unknown == 0) {
            return Finding.fail("zookeeper quorum", detail + ": fewer than a majority of " + ensembleSize + " are serving",
                    "bring a majority of the ensemble back");
        }
        return Finding.ok("zookeeper quorum", detail);
    }

    /** Sends a four-letter word and reads the whole reply (the server closes the connection after it). */
    static String fourLetterWord(LockUri.HostPort host, String word, Duration timeout) throws IOException {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(host.host(), host.port()), (int) timeout.toMillis());
            socket.setSoTimeout((int) timeout.toMillis());
            OutputStream out = socket.getOutputStream();
            out.write(word.getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = socket.getInputStream();
            ByteArrayOutputStream reply = new ByteArrayOutputStream();
            byte[] buffer = new byte[4096];
            int read;
            while ((read = in.read(buffer)) >= 0) {
                reply.write(buffer, 0, read);
            }
            return reply.toString(StandardCharsets.UTF_8);
        }
    }

    private static Map<String, String> parseFourLetterReply(String reply) {
        Map<String, String> fields = new LinkedHashMap<>();
        for (String line : reply.split("\r?\n")) {
            int colon = line.indexOf(':');
            if (colon > 0) {
                fields.put(line.substring(0, colon).trim(), line.substring(colon + 1).trim());
            }
        }
        return fields;
    }

    private static double parseDouble(String value) {
        try {
            return Double.parseDouble(value.trim());
        } catch (NumberFormatException e) {
            return 0;
        }
    }
}
