package io.locksmith.tck.server;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.nio.file.attribute.UserPrincipal;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * The real store servers the tests of every module start (redis-server, Sentinel, etcd, PostgreSQL, memcached), in one place: on
 * free loopback ports, without persistence, in temporary directories, as {@link ServerProcess}es that can be
 * killed, paused and restarted. A missing binary fails with an install hint.
 */
public final class StoreServers {

    /** How to install redis-server (and Sentinel, which it runs with {@code --sentinel}). */
    public static final String REDIS_INSTALL_HINT = "sudo apt-get install -y redis-server (Debian/Ubuntu)";
    /** How to install etcd. */
    public static final String ETCD_INSTALL_HINT = "sudo apt-get install -y etcd-server (Debian/Ubuntu)";
    /** How to install memcached (the server of the worked example in {@code examples/memcached-provider}). */
    public static final String MEMCACHED_INSTALL_HINT = "sudo apt-get install -y memcached (Debian/Ubuntu)";
    /** How to install the PostgreSQL server binaries ({@code initdb}, {@code postgres}). */
    public static final String POSTGRES_INSTALL_HINT = "sudo apt-get install -y postgresql (Debian/Ubuntu)";
    /** The superuser {@link #postgres()} creates; it logs in without a password over loopback (trust). */
    public static final String POSTGRES_USER = "locksmith";
    /** The operating-system user PostgreSQL runs as when the tests run as root (it refuses to run as root). */
    private static final String POSTGRES_OS_USER = "postgres";

    /** etcd heartbeat for tests: with it the shortest lease etcd grants is about one second. */
    public static final int ETCD_HEARTBEAT_MILLIS = 50;
    /** etcd election time-out for tests: a killed leader is replaced within a few hundred milliseconds. */
    public static final int ETCD_ELECTION_MILLIS = 600;

    /** The data directory every {@link #postgres(String...)} server starts from a copy of; see there. */
    private static Path postgresTemplate;

    private StoreServers() {
    }

    /** A redis-server with persistence off on a free port; {@code extraArgs} are appended (e.g. {@code --replicaof}). */
    public static ServerProcess redis(String... extraArgs) {
        int port = FreePorts.next();
        return redis(port, tempDir("redis-" + port), extraArgs);
    }

    /**
     * A redis-server with persistence off on {@code port}, its log in {@code dir} (the bench keeps servers on
     * tmpfs); {@code extraArgs} are appended.
     */
    public static ServerProcess redis(int port, Path dir, String... extraArgs) {
        List<String> command = new ArrayList<>(List.of("redis-server", "--port", Integer.toString(port),
                "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", dir.toString()));
        command.addAll(List.of(extraArgs));
        return ServerProcess.start("redis-" + port, command, dir, port, REDIS_INSTALL_HINT);
    }

    /**
     * A Sentinel watching the primary at {@code primaryPort} as {@code master}, with a quorum of one, declaring
     * the primary down after one second of silence so failover tests stay short.
     */
    public static ServerProcess sentinel(int primaryPort, String master) {
        return sentinel(primaryPort, master, 1, Duration.ofSeconds(1));
    }

    /**
     * A Sentinel as {@link #sentinel(int, String)}, one of a group that needs {@code quorum} Sentinels to agree
     * that the primary is down (a failover also needs a majority of the group to elect a leader), declaring the
     * primary down after {@code downAfter} of silence ({@code down-after-milliseconds}).
     */
    public static ServerProcess sentinel(int primaryPort, String master, int quorum, Duration downAfter) {
        if (quorum < 1) {
            throw new IllegalArgumentException("quorum must be at least 1, was " + quorum);
        }
        if (downAfter.toMillis() < 1) {
            throw new IllegalArgumentException("downAfter must be at least 1 ms, was " + downAfter);
        }
        int port = FreePorts.next();
        Path dir = tempDir("sentinel-" + port);
        Path config = dir.resolve("sentinel.conf");
        try {
            Files.writeString(config, String.join("\n",
                    "port " + port,
                    "bind 127.0.0.1",
                    "dir " + dir,
                    "sentinel monitor " + master + " 127.0.0.1 " + primaryPort + " " + quorum,
                    "sentinel down-after-milliseconds " + master + " " + downAfter.toMillis(),
                    "sentinel failover-timeout " + master + " 5000",
                    "sentinel parallel-syncs " + master + " 1",
                    ""));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + config, e);
        }
        // The redis-sentinel link is a separate Debian package; "redis-server FILE --sentinel" is what it runs.
        return ServerProcess.start("sentinel-" + port, List.of("redis-server", config.toString(), "--sentinel"), dir,
                port, REDIS_INSTALL_HINT);
    }

    /**
     * A redis-server as {@link #redis(String...)} that speaks TLS only: {@code --tls-port} on a free port (its
     * {@link ServerProcess#port()}) with {@code --port 0}, the server certificate and key of {@code certificates},
     * clients not asked for certificates, and replication over TLS ({@code --tls-replication yes}, for a replica of
     * another such server: pass {@code --replicaof 127.0.0.1 PORT} in {@code extraArgs}).
     */
    public static ServerProcess redisWithTls(TestCertificates certificates, String... extraArgs) {
        int port = FreePorts.next();
        List<String> args = new ArrayList<>(List.of("--port", "0", "--tls-port", Integer.toString(port)));
        args.addAll(redisTlsArgs(certificates));
        args.addAll(List.of(extraArgs));
        return redis(port, tempDir("redis-tls-" + port), args.toArray(String[]::new));
    }

    /**
     * The arguments that give a redis-server the certificate and key of {@code certificates}, trust in their
     * authority, clients without certificates, and TLS for replication ({@code --tls-replication yes}); add
     * {@code --tls-port} (and {@code --tls-cluster yes} for a cluster node).
     */
    public static List<String> redisTlsArgs(TestCertificates certificates) {
        return List.of("--tls-cert-file", certificates.serverCert().toString(),
                "--tls-key-file", certificates.serverKey().toString(),
                "--tls-ca-cert-file", certificates.caCert().toString(),
                "--tls-auth-clients", "no",
                "--tls-replication", "yes");
    }

    /**
     * A Sentinel as {@link #sentinel(int, String)} that speaks TLS only, to its clients and to the servers it
     * watches (which {@link #redisWithTls} started), with the certificates of {@code certificates}.
     */
    public static ServerProcess sentinelWithTls(int primaryPort, String master, TestCertificates certificates) {
        int port = FreePorts.next();
        Path dir = tempDir("sentinel-tls-" + port);
        Path config = dir.resolve("sentinel.conf");
        try {
            Files.writeString(config, String.join("\n",
                    "port 0",
                    "tls-port " + port,
                    "tls-cert-file " + certificates.serverCert(),
                    "tls-key-file " + certificates.serverKey(),
                    "tls-ca-cert-file " + certificates.caCert(),
                    "tls-auth-clients no",
                    "tls-replication yes",
                    "bind 127.0.0.1",
                    "dir " + dir,
                    "sentinel monitor " + master + " 127.0.0.1 " + primaryPort + " 1",
                    "sentinel down-after-milliseconds " + master + " 1000",
                    "sentinel failover-timeout " + master + " 5000",
                    "sentinel parallel-syncs " + master + " 1",
                    ""));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + config, e);
        }
        return ServerProcess.start("sentinel-tls-" + port, List.of("redis-server", config.toString(), "--sentinel"), dir,
                port, REDIS_INSTALL_HINT);
    }

    /**
     * A memcached on a free loopback port, TCP only, with 64 MB of memory and {@code -M}: it answers an error when
     * its memory is full instead of evicting items, since an evicted item would be a lock gone under its holder.
     * memcached keeps everything in memory, so {@link ServerProcess#restart()} loses every item.
     */
    public static ServerProcess memcached() {
        int port = FreePorts.next();
        List<String> command = new ArrayList<>(List.of("memcached", "--listen=127.0.0.1", "--port=" + port,
                "--udp-port=0", "--memory-limit=64", "--disable-evictions"));
        if (isRoot()) {
            command.add("--user=root"); // memcached refuses to run as root unless told which user to be
        }
        return ServerProcess.start("memcached-" + port, command, tempDir("memcached-" + port), port,
                MEMCACHED_INSTALL_HINT).deleteWorkDirOnClose();
    }

    /**
     * One etcd member.
     *
     * @param name        the member's name
     * @param clientPort  its client port
     * @param peerPort    its peer port
     * @param cluster     the initial cluster naming every member: {@code n1=http://127.0.0.1:P1,...}
     * @param dataDir     a directory for the cluster's data and logs (the member uses a sub-directory, deleted
     *                    when the member is closed; the logs stay for diagnosis)
     */
    public static ServerProcess etcdMember(String name, int clientPort, int peerPort, String cluster, Path dataDir) {
        return etcdMember(name, clientPort, peerPort, cluster, dataDir, null, false, List.of());
    }

    /**
     * One etcd member as {@link #etcdMember(String, int, int, String, Path)}, optionally serving clients over TLS.
     *
     * @param tls            if not null, clients are served over TLS only ({@code https://127.0.0.1:<clientPort>}) with
     *                       its server certificate; peers still talk plain HTTP on loopback
     * @param clientCertAuth with {@code tls}: a client must present a certificate signed by its authority
     *                       ({@code --client-cert-auth --trusted-ca-file})
     * @param extraArgs      further etcd flags, e.g. {@code --auth-token-ttl=2}
     */
    public static ServerProcess etcdMember(String name, int clientPort, int peerPort, String cluster, Path dataDir,
                                           TestCertificates tls, boolean clientCertAuth, List<String> extraArgs) {
        if (clientCertAuth && tls == null) {
            throw new IllegalArgumentException("client certificates need TLS: pass the certificates");
        }
        String binary = ServerProcess.requireBinary("etcd", ETCD_INSTALL_HINT);
        String clientUrl = (tls == null ? "http" : "https") + "://127.0.0.1:" + clientPort;
        List<String> command = new ArrayList<>(List.of(binary,
                "--name", name,
                "--data-dir", dataDir.resolve(name).toString(),
                "--listen-client-urls", clientUrl,
                "--advertise-client-urls", clientUrl,
                "--listen-peer-urls", "http://127.0.0.1:" + peerPort,
                "--initial-advertise-peer-urls", "http://127.0.0.1:" + peerPort,
                "--initial-cluster", cluster,
                "--initial-cluster-state", "new",
                "--initial-cluster-token", dataDir.getFileName().toString(),
                "--heartbeat-interval", Integer.toString(ETCD_HEARTBEAT_MILLIS),
                "--election-timeout", Integer.toString(ETCD_ELECTION_MILLIS),
                // A member that was cut off and rejoins must not depose a healthy leader with the terms it
                // counted up alone (etcd 3.4 runs without pre-vote by default): see docs/ETCD.md.
                "--pre-vote=true",
                "--log-level", "warn"));
        if (tls != null) {
            command.addAll(List.of("--cert-file", tls.serverCert().toString(), "--key-file", tls.serverKey().toString()));
            if (clientCertAuth) {
                command.addAll(List.of("--client-cert-auth", "--trusted-ca-file", tls.caCert().toString()));
            }
        }
        command.addAll(extraArgs);
        return ServerProcess.start("etcd-" + name + "-" + clientPort, command, dataDir.resolve("logs"), clientPort,
                ETCD_INSTALL_HINT).deleteOnClose(dataDir.resolve(name));
    }

    /** A single-member etcd on free ports; its client URL is {@code http://127.0.0.1:<port()>}. */
    public static ServerProcess etcd() {
        int clientPort = FreePorts.next();
        int peerPort = FreePorts.next();
        return etcdMember("single", clientPort, peerPort, "single=http://127.0.0.1:" + peerPort,
                tempDir("etcd-" + clientPort));
    }

    /**
     * A private PostgreSQL server from the installed Debian {@code postgresql} package: {@code initdb} into a
     * new temporary directory, then {@code postgres} on a free loopback port with superuser
     * {@value #POSTGRES_USER} (trust authentication over loopback, database {@code postgres}). Durability
     * settings stay on except {@code fsync}, which only matters if the machine itself crashes, so a killed
     * server recovers every committed lock. When the build runs as root the server runs as the
     * {@code postgres} operating-system user, as PostgreSQL refuses root; {@code setpriv} execs it in place, so
     * {@link ServerProcess#pid()} is the postmaster's.
     *
     * <p>{@code initdb} runs once per JVM, into a template that every server gets a copy of: it costs about four
     * times as much CPU as the copy, and the fault kits start a fresh server for each rule.
     *
     * Its directory (about 40 MB) is deleted when it is closed.
     *
     * @param extraSettings further {@code name=value} server settings, e.g. {@code wal_level=replica}
     * @throws IllegalStateException if PostgreSQL is not installed (with the install hint) or does not start
     */
    public static ServerProcess postgres(String... extraSettings) {
        int port = FreePorts.next();
        Path dir = tempDir("postgres-" + port);
        Path data = dir.resolve("data");
        ownedByPostgresUser(dir);
        copyTree(postgresTemplate(), data);
        return startPostgres(port, data, dir, List.of(extraSettings)).deleteWorkDirOnClose();
    }

    /**
     * A private PostgreSQL server as {@link #postgres(String...)}, with TLS on ({@code ssl=on}) with the server
     * certificate and key of {@code certificates}, and an authentication file that lets the superuser
     * {@value #POSTGRES_USER} in over loopback without a password (for the harness and tests' helpers) but every
     * other role only over TLS and with its password ({@code hostssl ... scram-sha-256}): a client that does not
     * use TLS, or has the wrong password, is refused. Create such roles with {@code CREATE ROLE ... LOGIN PASSWORD}.
     *
     * @param extraSettings further {@code name=value} server settings
     * @throws IllegalStateException if PostgreSQL is not installed (with the install hint) or does not start
     */
    public static ServerProcess postgresWithTls(TestCertificates certificates, String... extraSettings) {
        return postgresWithTls(certificates, "scram-sha-256", List.of(extraSettings));
    }

    /**
     * A private PostgreSQL server as {@link #postgresWithTls(TestCertificates, String...)} that also requires a client
     * certificate from the authority of {@code certificates} whose common name is the role's name
     * ({@code hostssl ... scram-sha-256 clientcert=verify-full}, {@code ssl_ca_file} that authority): a role logs in
     * with its password and such a certificate ({@link TestCertificates#clientCertificate}), or not at all.
     *
     * @param extraSettings further {@code name=value} server settings
     * @throws IllegalStateException if PostgreSQL is not installed (with the install hint) or does not start
     */
    public static ServerProcess postgresWithMutualTls(TestCertificates certificates, String... extraSettings) {
        return postgresWithTls(certificates, "scram-sha-256 clientcert=verify-full", List.of(extraSettings));
    }

    private static ServerProcess postgresWithTls(TestCertificates certificates, String sslAuthentication,
                                                 List<String> extraSettings) {
        int port = FreePorts.next();
        Path dir = tempDir("postgres-" + port);
        Path data = dir.resolve("data");
        Path cert = dir.resolve("server.crt");
        Path key = dir.resolve("server.key");
        Path hba = dir.resolve("pg_hba.conf");
        Path ca = dir.resolve("ca.crt");
        try {
            Files.copy(certificates.caCert(), ca);
            Files.copy(certificates.serverCert(), cert);
            Files.copy(certificates.serverKey(), key);
            // PostgreSQL refuses a key file that others may read.
            Files.setPosixFilePermissions(key, java.nio.file.attribute.PosixFilePermissions.fromString("rw-------"));
            Files.writeString(hba, String.join("\n",
                    "local   all  all  trust",
                    "host    all  " + POSTGRES_USER + "  127.0.0.1/32  trust",
                    "hostssl all  all  127.0.0.1/32  " + sslAuthentication,
                    ""));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the TLS files of a PostgreSQL server in " + dir, e);
        }
        ownedByPostgresUser(dir);
        copyTree(postgresTemplate(), data);
        List<String> settings = new ArrayList<>(List.of("ssl=on", "ssl_cert_file=" + cert, "ssl_key_file=" + key,
                "ssl_ca_file=" + ca, "hba_file=" + hba));
        settings.addAll(extraSettings);
        return startPostgres(port, data, dir, settings).deleteWorkDirOnClose();
    }

    /** A data directory fresh from {@code initdb}, made at the first call and deleted when the JVM exits. */
    private static synchronized Path postgresTemplate() {
        if (postgresTemplate == null) {
            Path dir = tempDir("postgres-template");
            Path data = dir.resolve("data");
            initdb(data, dir);
            Runtime.getRuntime().addShutdownHook(new Thread(() -> ServerProcess.deleteRecursively(dir),
                    "delete " + dir));
            postgresTemplate = data;
        }
        return postgresTemplate;
    }

    /**
     * Copies {@code source} to {@code target} (which must not exist) with owners and permissions: PostgreSQL
     * refuses a data directory that is not its own user's, or that others may read.
     */
    private static void copyTree(Path source, Path target) {
        try (Stream<Path> paths = Files.walk(source)) {
            for (Path path : paths.toList()) {
                Files.copy(path, target.resolve(source.relativize(path).toString()), StandardCopyOption.COPY_ATTRIBUTES,
                        LinkOption.NOFOLLOW_LINKS);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot copy the PostgreSQL template " + source + " to " + target, e);
        }
    }

    /**
     * Starts {@code postgres} on an existing data directory (a base backup of a replica, for example).
     *
     * @param port          the loopback port
     * @param data          the data directory, owned by the user PostgreSQL runs as
     * @param workDir       where the log goes
     * @param extraSettings further {@code name=value} server settings
     */
    public static ServerProcess startPostgres(int port, Path data, Path workDir, List<String> extraSettings) {
        List<String> command = new ArrayList<>(asPostgresUser(postgresBinary("postgres")));
        command.addAll(List.of("-D", data.toString(), "-p", Integer.toString(port), "-k", workDir.toString(),
                "-c", "listen_addresses=127.0.0.1", "-c", "fsync=off", "-c", "max_connections=400",
                "-c", "shared_buffers=32MB", "-c", "log_min_messages=warning"));
        for (String setting : extraSettings) {
            command.addAll(List.of("-c", setting));
        }
        ServerProcess server = ServerProcess.start("postgres-" + port, command, workDir, port, POSTGRES_INSTALL_HINT);
        try {
            awaitPostgresReady(server);
        } catch (RuntimeException e) {
            server.close();
            throw e;
        }
        return server;
    }

    /**
     * Waits until a PostgreSQL server accepts sessions ({@code pg_isready}): it listens before its start-up or
     * crash recovery is done, and refuses sessions meanwhile. Call it after {@link ServerProcess#restart()}.
     *
     * @throws IllegalStateException if it is not ready within 60 s
     */
    public static void awaitPostgresReady(ServerProcess server) {
        String isReady = postgresBinary("pg_isready");
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (true) {
            try {
                Process probe = new ProcessBuilder(isReady, "-q", "-h", "127.0.0.1", "-p",
                        Integer.toString(server.port()), "-U", POSTGRES_USER, "-d", "postgres", "-t", "5")
                        .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
                if (probe.waitFor(10, TimeUnit.SECONDS) && probe.exitValue() == 0) {
                    return;
                }
                probe.destroyForcibly();
                if (!server.isAlive() || System.nanoTime() - deadline > 0) {
                    throw new IllegalStateException(server + " does not accept sessions; its log ends with:\n"
                            + server.tail());
                }
                Thread.sleep(50); // polling the server: there is no event that announces it is ready
            } catch (IOException e) {
                throw new UncheckedIOException("cannot run " + isReady, e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while waiting for " + server, e);
            }
        }
    }

    /**
     * Runs a PostgreSQL client program of the installed server ({@code pg_basebackup}, {@code pg_ctl}, ...) as the
     * user the server runs as, and waits for it.
     *
     * @throws IllegalStateException if it fails; the message holds its output
     */
    public static void runPostgresTool(Path workDir, String tool, String... args) {
        List<String> command = new ArrayList<>(asPostgresUser(postgresBinary(tool)));
        command.addAll(List.of(args));
        run(command, workDir, tool);
    }

    /** A directory the user PostgreSQL runs as may write: {@code dir} itself, handed to that user when we are root. */
    public static Path ownedByPostgresUser(Path dir) {
        if (!isRoot()) {
            return dir;
        }
        try {
            UserPrincipal postgres = dir.getFileSystem().getUserPrincipalLookupService()
                    .lookupPrincipalByName(POSTGRES_OS_USER);
            try (Stream<Path> paths = Files.walk(dir)) {
                for (Path path : paths.sorted(Comparator.naturalOrder()).toList()) {
                    Files.setOwner(path, postgres);
                }
            }
            return dir;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot hand " + dir + " to the '" + POSTGRES_OS_USER + "' user"
                    + " (PostgreSQL refuses to run as root; the Debian postgresql package creates that user)", e);
        }
    }

    private static void initdb(Path data, Path workDir) {
        ownedByPostgresUser(workDir);
        List<String> command = new ArrayList<>(asPostgresUser(postgresBinary("initdb")));
        command.addAll(List.of("-D", data.toString(), "-U", POSTGRES_USER, "--auth=trust", "--encoding=UTF8",
                "--locale=C", "--no-sync", "--no-instructions"));
        run(command, workDir, "initdb");
    }

    private static void run(List<String> command, Path workDir, String what) {
        Path log = workDir.resolve(what + ".log");
        try {
            Process process = new ProcessBuilder(command).directory(workDir.toFile()).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
            if (!process.waitFor(60, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                throw new IllegalStateException(what + " did not finish within 60 s: " + command);
            }
            if (process.exitValue() != 0) {
                throw new IllegalStateException(what + " failed with code " + process.exitValue() + ": " + command
                        + "\n" + Files.readString(log));
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot run " + command, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while running " + what, e);
        }
    }

    /** {@code binary} prefixed so that it runs as the postgres user when we are root (setpriv execs in place). */
    private static List<String> asPostgresUser(String binary) {
        if (!isRoot()) {
            return List.of(binary);
        }
        String setpriv = ServerProcess.requireBinary("setpriv", "sudo apt-get install -y util-linux");
        return List.of(setpriv, "--reuid=" + POSTGRES_OS_USER, "--regid=" + POSTGRES_OS_USER, "--init-groups",
                "--", binary);
    }

    /**
     * The path of a PostgreSQL server program: the newest {@code /usr/lib/postgresql/<version>/bin} of the Debian
     * packages (they keep the server programs off the PATH), else the PATH.
     */
    static String postgresBinary(String program) {
        Path debian = Path.of("/usr/lib/postgresql");
        if (Files.isDirectory(debian)) {
            try (Stream<Path> versions = Files.list(debian)) {
                Path found = versions.map(version -> version.resolve("bin").resolve(program))
                        .filter(Files::isExecutable)
                        .max(Comparator.comparing(StoreServers::majorVersion))
                        .orElse(null);
                if (found != null) {
                    return found.toString();
                }
            } catch (IOException e) {
                // fall back to the PATH
            }
        }
        return ServerProcess.requireBinary(program, POSTGRES_INSTALL_HINT);
    }

    private static int majorVersion(Path binary) {
        try {
            return Integer.parseInt(binary.getParent().getParent().getFileName().toString());
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    private static boolean isRoot() {
        return "root".equals(System.getProperty("user.name"));
    }

    /** A new temporary directory for a server. */
    public static Path tempDir(String name) {
        try {
            return Files.createTempDirectory("locksmith-" + name + "-");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create a temporary directory", e);
        }
    }
}
