package io.locksmith.zookeeper;

import io.locksmith.tck.fault.LoopbackFirewall;
import io.locksmith.tck.server.FreePorts;
import io.locksmith.tck.server.ServerProcess;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

import static org.awaitility.Awaitility.await;

/**
 * A ZooKeeper ensemble of three servers, each in its own JVM ({@code QuorumPeerMain} on this JVM's class path),
 * so that one member can be cut from its peers while clients still reach it: {@link LoopbackFirewall} drops the
 * member's own peer links by process ({@code cutProcess}) and its peers' links to it by port ({@code cutPorts}).
 * In-JVM members (curator-test's {@code TestingCluster}) share one process and cannot be cut apart this way.
 *
 * <p>Starting costs about 2-3 s (three JVMs in parallel, then an election); each member takes about 60 MB.
 */
final class ProcessEnsemble implements AutoCloseable {

    /** One member: its ports and its process. */
    record Member(int id, int clientPort, int quorumPort, int electionPort, ServerProcess process) {
        String address() {
            return "127.0.0.1:" + clientPort;
        }
    }

    private final int tickTimeMillis;
    private final int syncLimit;
    private final List<Member> members = new ArrayList<>();
    private LoopbackFirewall firewall;
    private Member isolated;

    /**
     * Starts three members and waits until they have a leader.
     *
     * @param tickTimeMillis ZooKeeper's {@code tickTime}
     * @param syncLimit      ZooKeeper's {@code syncLimit}: a follower gives up on a silent leader after
     *                       {@code syncLimit x tickTime}
     */
    ProcessEnsemble(int tickTimeMillis, int syncLimit) {
        this.tickTimeMillis = tickTimeMillis;
        this.syncLimit = syncLimit;
        try {
            Path root = Files.createTempDirectory("locksmith-zk-ensemble");
            int[][] ports = new int[3][];
            for (int i = 0; i < 3; i++) {
                ports[i] = new int[] {FreePorts.next(), FreePorts.next(), FreePorts.next()};
            }
            StringBuilder peers = new StringBuilder();
            for (int i = 0; i < 3; i++) {
                peers.append("server.").append(i + 1).append("=127.0.0.1:").append(ports[i][1]).append(':')
                        .append(ports[i][2]).append('\n');
            }
            String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
            for (int i = 0; i < 3; i++) {
                Path dir = root.resolve("member-" + (i + 1));
                Path data = dir.resolve("data");
                Files.createDirectories(data);
                Files.writeString(data.resolve("myid"), Integer.toString(i + 1));
                Path config = dir.resolve("zoo.cfg");
                Files.writeString(config, "tickTime=" + tickTimeMillis + "\ninitLimit=10\nsyncLimit=" + syncLimit
                        + "\ndataDir=" + data + "\nclientPort=" + ports[i][0] + "\nclientPortAddress=127.0.0.1\n"
                        + "admin.enableServer=false\n4lw.commands.whitelist=*\n" + peers);
                List<String> command = List.of(java, "-Xmx96m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
                        // The members' own logs (in their work directories) show elections and lost leaders.
                        "-Dorg.slf4j.simpleLogger.log.org.apache.zookeeper=info",
                        "-cp", System.getProperty("java.class.path"),
                        "org.apache.zookeeper.server.quorum.QuorumPeerMain", config.toString());
                members.add(new Member(i + 1, ports[i][0], ports[i][1], ports[i][2],
                        ServerProcess.start("zookeeper-" + (i + 1), command, dir, ports[i][0],
                                "a JDK (the members run as java child processes)").deleteOnClose(data)));
            }
            awaitQuorum(Duration.ofSeconds(60));
        } catch (IOException e) {
            close();
            throw new UncheckedIOException("cannot set up a ZooKeeper ensemble", e);
        } catch (RuntimeException e) {
            close();
            throw e;
        }
    }

    int tickTimeMillis() {
        return tickTimeMillis;
    }

    int syncLimit() {
        return syncLimit;
    }

    List<Member> members() {
        return List.copyOf(members);
    }

    /** A member that follows (not the leader); the case. */
    Member aFollower() {
        return members.stream().filter(m -> mode(m).equals("follower")).findFirst()
                .orElseThrow(() -> new IllegalStateException("no follower in " + modes()));
    }

    /** The member that leads now. */
    Member theLeader() {
        return members.stream().filter(m -> mode(m).equals("leader")).findFirst()
                .orElseThrow(() -> new IllegalStateException("no leader in " + modes()));
    }

    /** Freezes {@code member} with SIGSTOP: its connections stay open and nothing answers (rule R9.10). */
    void freeze(Member member) {
        member.process().pause();
    }

    /** Resumes a frozen member and waits until every member serves again, with one leader. */
    void thaw(Member member, Duration patience) {
        member.process().resume();
        awaitQuorum(patience);
    }

    String connectString(List<Member> chosen) {
        return chosen.stream().map(Member::address).collect(Collectors.joining(","));
    }

    List<Member> othersThan(Member member) {
        return members.stream().filter(m -> m != member).toList();
    }

    /** Cuts {@code member} from its peers, both ways; its clients still reach it. */
    synchronized void isolate(Member member) {
        if (firewall == null) {
            firewall = LoopbackFirewall.open();
        }
        List<Integer> peerPorts = new ArrayList<>();
        for (Member other : othersThan(member)) {
            peerPorts.add(other.quorumPort());
            peerPorts.add(other.electionPort());
        }
        firewall.cutPorts(member.quorumPort(), member.electionPort());
        firewall.cutProcess(member.process().pid(), peerPorts.stream().mapToInt(Integer::intValue).toArray());
        isolated = member;
    }

    /** Heals the partition and waits until every member serves again, with one leader. */
    synchronized void heal(Duration patience) {
        if (firewall != null) {
            firewall.heal();
        }
        if (isolated != null) {
            isolated = null;
            awaitQuorum(patience);
        }
    }

    /** Until all three members serve (one leader, two followers). */
    void awaitQuorum(Duration patience) {
        await("a ZooKeeper leader with two followers: " + members).atMost(patience)
                .pollInterval(Duration.ofMillis(100))
                .until(() -> {
                    List<String> modes = modes();
                    return modes.stream().filter("leader"::equals).count() == 1
                            && modes.stream().filter("follower"::equals).count() == 2;
                });
    }

    List<String> modes() {
        return members.stream().map(ProcessEnsemble::mode).toList();
    }

    /** The member's mode from the {@code srvr} four-letter word: leader, follower, or "down". */
    static String mode(Member member) {
        String answer = word(member.clientPort(), "srvr");
        for (String line : answer.split("\n")) {
            if (line.startsWith("Mode: ")) {
                return line.substring("Mode: ".length()).strip();
            }
        }
        return "down";
    }

    /** A four-letter word's answer, or an empty string if the member does not serve. */
    static String word(int port, String word) {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress("127.0.0.1", port), 1000);
            socket.setSoTimeout(2000);
            OutputStream out = socket.getOutputStream();
            out.write(word.getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = socket.getInputStream();
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            return "";
        }
    }

    @Override
    public synchronized void close() {
        RuntimeException failure = null;
        if (firewall != null) {
            try {
                firewall.close();
            } catch (RuntimeException e) {
                failure = e;
            }
        }
        for (Member member : members) {
            member.process().close();
        }
        if (failure != null) {
            throw failure;
        }
    }

    @Override
    public String toString() {
        return "ZooKeeper ensemble " + connectString(members) + " (tickTime=" + tickTimeMillis + ", syncLimit="
                + syncLimit + ")";
    }
}
