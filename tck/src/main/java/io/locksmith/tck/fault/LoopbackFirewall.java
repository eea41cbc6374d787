package io.locksmith.tck.fault;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;

/**
 * Network partitions between processes on one machine, all on loopback: the fault tool for "this member is cut
 * from its peers while its clients still reach it" (a minority partition), which a {@link TcpProxy} in front of
 * a member cannot express because peers and clients use the same addresses.
 *
 * <p>Two kinds of cut, combined as a test needs them:
 * <ul>
 * <li>{@link #cutPorts(int...)}: every TCP connection to one of the ports is dropped, new and established,
 *     in both directions (for example a member's peer port: nobody reaches it any more);</li>
 * <li>{@link #cutProcess(long, int...)}: every TCP connection that one process opens to one of the ports is
 *     dropped (for example the isolated member's own links to its peers' ports), while other processes,
 *     such as the test's clients, still connect to those ports.</li>
 * </ul>
 * Packets are dropped, not refused, so both sides see what a real partition shows: silence until their
 * time-outs. {@link #heal()} removes every rule; connections recover once their retransmissions get through.
 *
 * <p>How: {@code iptables} marks the matching connections (conntrack {@code CONNMARK}, by destination port and,
 * for a process, by its cgroup v2 path, since every process here shares the loopback source address) and drops
 * every packet of a marked connection. Each instance uses its own mark and cgroup, tagged with this JVM's pid,
 * so concurrent test JVMs do not disturb each other and rules left by a JVM that died are removed by the next
 * {@link #open()}.
 *
 * <p>Needs root (or {@code CAP_NET_ADMIN}) and the {@code iptables} command (Debian package {@code iptables});
 * without them {@link #open()} fails with what to install, never skips.
 */
public final class LoopbackFirewall implements AutoCloseable {

    /** Install hint when iptables is missing. */
    public static final String IPTABLES_INSTALL_HINT = "sudo apt-get install -y iptables (Debian/Ubuntu)";

    private static final String TAG = "locksmith-fault";
    private static final AtomicInteger SEQUENCE = new AtomicInteger();
    private static final long JVM_PID = ProcessHandle.current().pid();

    private final String iptables;
    private final Path cgroupRoot;
    private int mark;
    private final List<List<String>> rules = new ArrayList<>();
    private final List<Path> cgroups = new ArrayList<>();
    private boolean closed;

    private LoopbackFirewall(String iptables, Path cgroupRoot) {
        this.iptables = iptables;
        this.cgroupRoot = cgroupRoot;
    }

    /**
     * Opens a firewall for one test; rules left behind by test JVMs that no longer run are removed first.
     *
     * @throws IllegalStateException if this process is not root, {@code iptables} is missing, or the kernel
     *                               lacks the conntrack or cgroup match (the message says which)
     */
    public static LoopbackFirewall open() {
        String iptables = Executables.find("iptables").orElseThrow(() -> new IllegalStateException(
                "'iptables' is not installed, and partition tests need it. Install it: " + IPTABLES_INSTALL_HINT));
        if (!"root".equals(System.getProperty("user.name"))) {
            throw new IllegalStateException("partition tests change iptables rules and need root (or CAP_NET_ADMIN); "
                    + "run the build as root, as CI does");
        }
        Path cgroupRoot = cgroup2Root();
        removeRulesOfDeadJvms(iptables);
        LoopbackFirewall firewall = new LoopbackFirewall(iptables, cgroupRoot);
        firewall.startWithFreshMark();
        return firewall;
    }

    /**
     * Drops every TCP connection to any of {@code ports} on loopback, new and established, both directions.
     *
     * @throws IllegalArgumentException if no port is given, or more than 15
     * @throws IllegalStateException    if an iptables call fails or the firewall is closed
     */
    public synchronized void cutPorts(int... ports) {
        String list = portList(ports);
        add("mangle", "OUTPUT", "-p", "tcp", "-m", "multiport", "--dports", list,
                "-j", "CONNMARK", "--set-mark", markHex());
        // Established connections whose next packet comes from the server side.
        add("mangle", "OUTPUT", "-p", "tcp", "-m", "multiport", "--sports", list,
                "-j", "CONNMARK", "--set-mark", markHex());
    }

    /**
     * Drops every TCP connection that process {@code pid} (and the children it starts from now on) opens to
     * any of {@code ports}, new and established (those it has open now included); other processes keep reaching
     * those ports.
     *
     * @throws IllegalArgumentException if no port is given, or more than 15
     * @throws IllegalStateException    if the process cannot be moved into a cgroup, an iptables call fails,
     *                                  or the firewall is closed
     */
    public synchronized void cutProcess(long pid, int... ports) {
        String list = portList(ports);
        String cgroupName = comment() + "-" + pid;
        Path cgroup = cgroupRoot.resolve(cgroupName);
        try {
            Files.createDirectories(cgroup);
            cgroups.add(cgroup);
            Files.writeString(cgroup.resolve("cgroup.procs"), Long.toString(pid), StandardCharsets.US_ASCII);
        } catch (IOException e) {
            throw new IllegalStateException("cannot move process " + pid + " into cgroup " + cgroup
                    + " (a partition by process needs a writable cgroup v2 hierarchy)", e);
        }
        add("mangle", "OUTPUT", "-p", "tcp", "-m", "cgroup", "--path", cgroupName,
                "-m", "multiport", "--dports", list, "-j", "CONNMARK", "--set-mark", markHex());
        // A socket keeps the cgroup it was created in, so the rule above only sees connections opened from now
        // on. The ones already open (a replica's link, a Sentinel's pings) are marked by their own ports; the
        // process is in the cgroup already, so a connection opened meanwhile is caught by one rule or the other.
        for (int[] connection : openConnections(pid, ports)) {
            String local = Integer.toString(connection[0]);
            String remote = Integer.toString(connection[1]);
            add("mangle", "OUTPUT", "-p", "tcp", "--sport", local, "--dport", remote,
                    "-j", "CONNMARK", "--set-mark", markHex());
            add("mangle", "OUTPUT", "-p", "tcp", "--sport", remote, "--dport", local,
                    "-j", "CONNMARK", "--set-mark", markHex());
        }
    }

    /**
     * The TCP connections process {@code pid} has open to one of {@code ports}, as (local port, remote port)
     * pairs: its socket inodes from {@code /proc/PID/fd}, matched with {@code /proc/PID/net/tcp} and {@code tcp6}.
     */
    private static List<int[]> openConnections(long pid, int... ports) {
        java.util.Set<String> inodes = new java.util.HashSet<>();
        Path fds = Path.of("/proc", Long.toString(pid), "fd");
        try (var entries = Files.list(fds)) {
            for (Path fd : (Iterable<Path>) entries::iterator) {
                try {
                    String target = Files.readSymbolicLink(fd).toString();
                    if (target.startsWith("socket:[")) {
                        inodes.add(target.substring("socket:[".length(), target.length() - 1));
                    }
                } catch (IOException closedMeanwhile) {
                    // a descriptor closed while listing: not a connection any more
                }
            }
        } catch (IOException e) {
            throw new IllegalStateException("cannot list the sockets of process " + pid + " in " + fds, e);
        }
        java.util.Set<Integer> wanted = Arrays.stream(ports).boxed().collect(Collectors.toSet());
        List<int[]> connections = new ArrayList<>();
        for (String table : List.of("tcp", "tcp6")) {
            Path file = Path.of("/proc", Long.toString(pid), "net", table);
            List<String> lines;
            try {
                lines = Files.exists(file) ? Files.readAllLines(file) : List.of();
            } catch (IOException e) {
                throw new IllegalStateException("cannot read " + file, e);
            }
            for (String line : lines.subList(Math.min(1, lines.size()), lines.size())) {
                String[] fields = line.trim().split("\\s+");
                if (fields.length < 10 || !inodes.contains(fields[9])) {
                    continue;
                }
                int local = Integer.parseInt(fields[1].substring(fields[1].lastIndexOf(':') + 1), 16);
                int remote = Integer.parseInt(fields[2].substring(fields[2].lastIndexOf(':') + 1), 16);
                if (wanted.contains(remote)) {
                    connections.add(new int[] {local, remote});
                }
            }
        }
        return connections;
    }

    /**
     * Removes every cut: connections cut so far flow again (once their retransmissions get through) and new
     * ones are not dropped. The firewall stays open for further cuts. Idempotent.
     */
    public synchronized void heal() {
        removeAll();
        if (!closed) {
            // Connections marked so far keep their mark; a fresh mark leaves them without a drop rule.
            startWithFreshMark();
        }
    }

    private void startWithFreshMark() {
        // The whole pid (at most 22 bits on Linux) goes into the mark: several test JVMs cut connections at once,
        // and two of them must never share a mark (one's drop rule would cut the other's connections).
        mark = 0x40000000 | ((int) (JVM_PID & 0x3fffff) << 8) | (SEQUENCE.incrementAndGet() & 0xff);
        // One drop rule per mark: every packet of a connection marked by this instance's cuts.
        add("filter", "OUTPUT", "-m", "connmark", "--mark", markHex(), "-j", "DROP");
    }

    private String comment() {
        return TAG + "-" + JVM_PID + "-" + Integer.toHexString(mark);
    }

    /** Removes every rule and cgroup of this instance. Idempotent. */
    @Override
    public synchronized void close() {
        closed = true;
        removeAll();
    }

    private void removeAll() {
        List<List<String>> reversed = new ArrayList<>(rules);
        java.util.Collections.reverse(reversed);
        rules.clear();
        List<String> failures = new ArrayList<>();
        for (List<String> rule : reversed) {
            List<String> delete = new ArrayList<>(rule);
            delete.set(delete.indexOf("-A"), "-D");
            Result result = run(delete);
            if (result.exitCode != 0) {
                failures.add(String.join(" ", delete) + ": " + result.output);
            }
        }
        for (Path cgroup : cgroups) {
            releaseCgroup(cgroup);
        }
        cgroups.clear();
        if (!failures.isEmpty()) {
            throw new IllegalStateException("could not remove iptables rules: " + failures);
        }
    }

    private void add(String table, String chain, String... match) {
        if (closed) {
            throw new IllegalStateException("firewall closed");
        }
        List<String> rule = new ArrayList<>(List.of(iptables, "-w", "5", "-t", table, "-A", chain));
        rule.addAll(Arrays.asList(match));
        rule.addAll(List.of("-m", "comment", "--comment", comment()));
        Result result = run(rule);
        if (result.exitCode != 0) {
            throw new IllegalStateException("iptables refused '" + String.join(" ", rule) + "': " + result.output
                    + " (the kernel needs conntrack, connmark, multiport and the cgroup match)");
        }
        rules.add(rule);
    }

    private String markHex() {
        return "0x" + Integer.toHexString(mark);
    }

    private static String portList(int... ports) {
        Objects.requireNonNull(ports, "ports cannot be null");
        if (ports.length == 0 || ports.length > 15) {
            throw new IllegalArgumentException("between 1 and 15 ports, got " + ports.length);
        }
        for (int port : ports) {
            if (port < 1 || port > 65535) {
                throw new IllegalArgumentException("port out of range: " + port);
            }
        }
        return Arrays.stream(ports).mapToObj(Integer::toString).collect(Collectors.joining(","));
    }

    private void releaseCgroup(Path cgroup) {
        try {
            Path procs = cgroup.resolve("cgroup.procs");
            if (Files.exists(procs)) {
                for (String pid : Files.readAllLines(procs)) {
                    if (!pid.isBlank()) {
                        Files.writeString(cgroupRoot.resolve("cgroup.procs"), pid.trim(), StandardCharsets.US_ASCII);
                    }
                }
            }
            Files.deleteIfExists(cgroup);
        } catch (IOException e) {
            // A process that exited meanwhile cannot be moved; the cgroup is removed once it is empty.
            try {
                Files.deleteIfExists(cgroup);
            } catch (IOException ignored) {
                // Left for removeRulesOfDeadJvms() of a later run.
            }
        }
    }

    private static Path cgroup2Root() {
        for (Path candidate : List.of(Path.of("/sys/fs/cgroup/unified"), Path.of("/sys/fs/cgroup"))) {
            if (Files.exists(candidate.resolve("cgroup.procs")) && Files.exists(candidate.resolve("cgroup.max.depth"))) {
                return candidate;
            }
        }
        throw new IllegalStateException("no cgroup v2 hierarchy at /sys/fs/cgroup or /sys/fs/cgroup/unified: "
                + "partitions by process need one");
    }

    /** Rules (and cgroups) tagged with the pid of a JVM that no longer runs: a test that died mid-partition. */
    private static void removeRulesOfDeadJvms(String iptables) {
        for (String table : List.of("filter", "mangle")) {
            Result listing = run(List.of(iptables, "-w", "5", "-t", table, "-S"));
            if (listing.exitCode != 0) {
                continue;
            }
            for (String line : listing.output.split("\n")) {
                int at = line.indexOf(TAG + "-");
                if (!line.startsWith("-A ") || at < 0) {
                    continue;
                }
                String rest = line.substring(at + TAG.length() + 1);
                long pid = Long.parseLong(rest.substring(0, rest.indexOf('-')));
                if (ProcessHandle.of(pid).isEmpty()) {
                    List<String> delete = new ArrayList<>(List.of(iptables, "-w", "5", "-t", table));
                    delete.addAll(splitRule("-D" + line.substring(2)));
                    run(delete);
                }
            }
        }
        Path root;
        try {
            root = cgroup2Root();
        } catch (IllegalStateException e) {
            return;
        }
        try (var entries = Files.list(root)) {
            for (Path dir : (Iterable<Path>) entries::iterator) {
                String name = dir.getFileName().toString();
                if (name.startsWith(TAG + "-")) {
                    String rest = name.substring(TAG.length() + 1);
                    long pid = Long.parseLong(rest.substring(0, rest.indexOf('-')));
                    if (ProcessHandle.of(pid).isEmpty()) {
                        try {
                            Files.deleteIfExists(dir);
                        } catch (IOException ignored) {
                            // Still has processes: they keep running in their cgroup, unharmed.
                        }
                    }
                }
            }
        } catch (IOException | RuntimeException ignored) {
            // Best effort: a leftover cgroup without rules does no harm.
        }
    }

    /** Splits an {@code iptables -S} line into arguments, keeping quoted comments whole. */
    private static List<String> splitRule(String line) {
        List<String> args = new ArrayList<>();
        StringBuilder current = new StringBuilder();
        boolean quoted = false;
        for (char c : line.toCharArray()) {
            if (c == '"') {
                quoted = !quoted;
            } else if (c == ' ' && !quoted) {
                if (current.length() > 0) {
                    args.add(current.toString());
                    current.setLength(0);
                }
            } else {
                current.append(c);
            }
        }
        if (current.length() > 0) {
            args.add(current.toString());
        }
        return args;
    }

    private record Result(int exitCode, String output) {
    }

    private static Result run(List<String> command) {
        try {
            Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
            String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
            if (!process.waitFor(20, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                return new Result(-1, "timed out");
            }
            return new Result(process.exitValue(), output);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot run " + command.get(0), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while running iptables", e);
        }
    }
}
