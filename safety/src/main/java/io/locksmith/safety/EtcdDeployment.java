package io.locksmith.safety;

import io.locksmith.LockClient;
import io.locksmith.tck.TckTiming;
import io.locksmith.tck.fault.LoopbackFirewall;
import io.locksmith.tck.fault.TcpProxy;
import io.locksmith.tck.server.FreePorts;
import io.locksmith.tck.server.ServerProcess;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

/**
 * etcd 3.4 members (the Debian {@code etcd} binary), one or three: {@code etcd://}. With three,
 * {@link #killNode()} kills the leader and {@link #restartNode()} starts it again on its data.
 */
public final class EtcdDeployment implements Deployment {

    /** The fault rules' timing: etcd counts lease TTLs in whole seconds, so a 1 s short lease and 5 s of slack. */
    public static final TckTiming TIMING = TckTiming.defaults().scaledBy(2.5);

    private static final Pattern MEMBER_ID = Pattern.compile("\"member_id\"\\s*:\\s*\"?(\\d+)");
    private static final Pattern LEADER = Pattern.compile("\"leader\"\\s*:\\s*\"?(\\d+)");

    /** The lease of the clients of a minority partition: short, so the majority's grant comes soon after the cut. */
    static final Duration PARTITION_LEASE = Duration.ofSeconds(3);

    private final List<Integer> clientPorts = new ArrayList<>();
    private final List<Integer> peerPorts = new ArrayList<>();
    private final List<ServerProcess> members = new ArrayList<>();
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(1)).build();
    private ServerProcess killed;
    /** The member a minority partition cuts off (the leader when first asked), or -1. */
    private int minority = -1;
    private LoopbackFirewall firewall;
    /** Whether {@link #freezeMember()} left the member of {@link #minorityMember()} stopped. */
    private boolean frozen;

    public EtcdDeployment(int size) {
        Path dataDir = Servers.tempDir("etcd");
        for (int i = 0; i < size; i++) {
            clientPorts.add(FreePorts.next());
            peerPorts.add(FreePorts.next());
        }
        String cluster = IntStream.range(0, size).mapToObj(i -> "m" + i + "=http://127.0.0.1:" + peerPorts.get(i))
                .collect(Collectors.joining(","));
        try {
            List<Thread> starting = new ArrayList<>();
            List<RuntimeException> failures = new ArrayList<>();
            for (int i = 0; i < size; i++) {
                int index = i;
                members.add(null);
                // Members of a new cluster wait for each other: start them together.
                Thread thread = new Thread(() -> {
                    try {
                        ServerProcess member = Servers.etcd("m" + index, clientPorts.get(index), peerPorts.get(index),
                                cluster, dataDir);
                        synchronized (members) {
                            members.set(index, member);
                        }
                    } catch (RuntimeException e) {
                        synchronized (failures) {
                            failures.add(e);
                        }
                    }
                });
                thread.start();
                starting.add(thread);
            }
            for (Thread thread : starting) {
                thread.join();
            }
            if (!failures.isEmpty()) {
                throw failures.get(0);
            }
            Servers.awaitState("an etcd leader", Duration.ofSeconds(30), () -> leader() != null);
            // A leader in the status is not yet a cluster that serves: wait until every member reads through it.
            Servers.awaitState("every etcd member serving linearizable reads", Duration.ofSeconds(30),
                    () -> clientPorts.stream().allMatch(this::linearizableRead));
            // The first etcd client of a JVM loads gRPC and Netty, which takes seconds on a loaded machine: more
            // than the 2 s store time-out of the clients under test. Pay it here, not inside a rule.
            try (LockClient warmUp = LockClient.open("etcd://127.0.0.1:" + clientPorts.get(0) + "?timeout=30s")) {
                warmUp.lock("warm-up").tryAcquire().ifPresent(io.locksmith.Lease::close);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            close();
            throw new IllegalStateException("interrupted while starting etcd", e);
        } catch (RuntimeException e) {
            close();
            throw e;
        }
    }

    @Override
    public String name() {
        return members.size() == 1 ? "etcd-single" : "etcd-" + members.size();
    }

    @Override
    public String description() {
        return members.size() == 1 ? "one etcd 3.4 member, jetcd client"
                : "etcd 3.4 cluster of " + members.size() + " members (heartbeat 50 ms, election 600 ms, pre-vote), jetcd client";
    }

    /**
     * Every member, with a 5 s store time-out: a victim JVM's first etcd call loads gRPC and
     * Netty, which took more than 2 s on a loaded 2-core machine (the victims of R9.1 and R9.2 then could not
     * even open). A renewal still gives up within its TTL, whatever the time-out.
     */
    @Override
    public String uri() {
        return "etcd://" + clientPorts.stream().map(p -> "127.0.0.1:" + p).collect(Collectors.joining(","))
                + "?timeout=5s";
    }

    @Override
    public Set<Fault> faults() {
        return members.size() == 1
                ? EnumSet.of(Fault.HOLDER_KILL, Fault.HOLDER_PAUSE, Fault.CLIENT_PARTITION, Fault.LOST_REPLY)
                : EnumSet.of(Fault.HOLDER_KILL, Fault.HOLDER_PAUSE, Fault.CLIENT_PARTITION, Fault.LOST_REPLY,
                        Fault.NODE_KILL);
    }

    @Override
    public TckTiming timing() {
        return TIMING;
    }

    @Override
    public String proxiedAddress() {
        if (members.size() != 1) {
            throw new UnsupportedOperationException(name() + " has several members to proxy");
        }
        return "127.0.0.1:" + clientPorts.get(0);
    }

    @Override
    public String uriThrough(TcpProxy proxy) {
        proxiedAddress();
        return "etcd://127.0.0.1:" + proxy.port() + "?timeout=2s";
    }

    /**
     * The leader, when first asked: the harder case of a minority partition, since etcd 3.4 lets a leader
     * answer lease keep-alives from its own state until it notices (after an election time-out) that it lost
     * its quorum, while the majority elects a new leader in the same time.
     */
    private int minorityMember() {
        if (members.size() < 3) {
            throw new UnsupportedOperationException(name() + " has no majority to cut a member from");
        }
        if (minority < 0) {
            ServerProcess leader = leader();
            minority = leader == null ? 0 : members.indexOf(leader);
        }
        return minority;
    }

    @Override
    public String minorityMemberUri() {
        return "etcd://127.0.0.1:" + clientPorts.get(minorityMember()) + "?timeout=2s&lease="
                + PARTITION_LEASE.toSeconds() + "s";
    }

    @Override
    public String majorityUri() {
        int cut = minorityMember();
        return "etcd://" + IntStream.range(0, members.size()).filter(i -> i != cut)
                .mapToObj(i -> "127.0.0.1:" + clientPorts.get(i)).collect(Collectors.joining(","))
                + "?timeout=2s&lease=" + PARTITION_LEASE.toSeconds() + "s";
    }

    /**
     * Drops the isolated member's peer links both ways: nobody reaches its peer port, and its own connections to
     * the others' peer ports are dropped. Client ports stay open, so its clients keep talking to it.
     */
    @Override
    public void isolateMinorityMember() {
        int cut = minorityMember();
        if (firewall == null) {
            firewall = LoopbackFirewall.open();
        }
        int[] others = IntStream.range(0, members.size()).filter(i -> i != cut).map(peerPorts::get).toArray();
        firewall.cutPorts(peerPorts.get(cut));
        firewall.cutProcess(members.get(cut).pid(), others);
    }

    @Override
    public void healMinorityMember() {
        if (firewall == null) {
            return;
        }
        firewall.heal();
        int cut = minorityMember();
        Servers.awaitState("the healed etcd member serving linearizable reads", Duration.ofSeconds(30),
                () -> leader() != null && linearizableRead(clientPorts.get(cut)));
    }

    /**
     * Freezes the member of {@link #minorityMemberUri()}, the leader when first chosen: its client connections stay
     * open and unanswered while the two others elect a new leader.
     */
    @Override
    public void freezeMember() {
        members.get(minorityMember()).pause();
        frozen = true;
    }

    @Override
    public void thawMember() {
        if (!frozen) {
            return;
        }
        int member = minorityMember();
        members.get(member).resume();
        frozen = false;
        Servers.awaitState("the thawed etcd member serving linearizable reads", Duration.ofSeconds(30),
                () -> leader() != null && linearizableRead(clientPorts.get(member)));
    }

    /** Whether the member answers a linearizable read, which needs its leader and a quorum. */
    private boolean linearizableRead(int port) {
        try {
            HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/v3/kv/range"))
                    .timeout(Duration.ofSeconds(1)).POST(HttpRequest.BodyPublishers.ofString("{\"key\":\"AA==\"}")).build();
            HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
            return response.statusCode() == 200 && response.body().contains("\"header\"");
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    @Override
    public List<String> proxiedAddresses() {
        return clientPorts.stream().map(port -> "127.0.0.1:" + port).toList();
    }

    @Override
    public String uriThrough(List<TcpProxy> proxies) {
        return "etcd://" + proxies.stream().map(proxy -> "127.0.0.1:" + proxy.port()).collect(Collectors.joining(","))
                + "?timeout=2s";
    }

    /** The member that is leader now, by the maintenance status of the live members; null if none. */
    private ServerProcess leader() {
        String leaderId = null;
        List<String> memberIds = new ArrayList<>();
        for (int i = 0; i < members.size(); i++) {
            String status = members.get(i) != null && members.get(i).isAlive() ? status(clientPorts.get(i)) : "";
            memberIds.add(find(MEMBER_ID, status));
            String leader = find(LEADER, status);
            if (leader != null) {
                leaderId = leader;
            }
        }
        if (leaderId == null) {
            return null;
        }
        for (int i = 0; i < members.size(); i++) {
            if (leaderId.equals(memberIds.get(i))) {
                return members.get(i);
            }
        }
        return null;
    }

    private String status(int port) {
        try {
            HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/v3/maintenance/status"))
                    .timeout(Duration.ofSeconds(1)).POST(HttpRequest.BodyPublishers.ofString("{}")).build();
            return http.send(request, HttpResponse.BodyHandlers.ofString()).body();
        } catch (IOException e) {
            return "";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "";
        }
    }

    private static String find(Pattern pattern, String text) {
        Matcher matcher = pattern.matcher(text);
        return matcher.find() ? matcher.group(1) : null;
    }

    @Override
    public void killNode() {
        if (members.size() < 3) {
            throw new UnsupportedOperationException(name() + " cannot survive the loss of a member");
        }
        ServerProcess leader = leader();
        if (leader == null) {
            throw new IllegalStateException("the etcd cluster has no leader to kill");
        }
        leader.kill();
        killed = leader;
    }

    /** The one member killed and started again on its data directory, once it serves linearizable reads. */
    @Override
    public void restartStore() {
        if (members.size() != 1) {
            throw new UnsupportedOperationException(name() + " restarts a member at a time (killNode, restartNode)");
        }
        members.get(0).restart();
        Servers.awaitState("the restarted etcd member serving linearizable reads", Duration.ofSeconds(30),
                () -> linearizableRead(clientPorts.get(0)));
    }

    @Override
    public void restartNode() {
        if (killed != null) {
            killed.restart();
            killed = null;
        }
    }

    @Override
    public void close() {
        List<AutoCloseable> all = new ArrayList<>();
        all.add(firewall);
        all.addAll(members);
        Servers.closeAll(all);
    }
}
