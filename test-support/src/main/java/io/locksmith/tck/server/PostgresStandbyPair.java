package io.locksmith.tck.server;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * A PostgreSQL primary and one streaming standby made from it with {@code pg_basebackup -R}, each on its own
 * loopback port, from the installed server binaries (run as the {@code postgres} user when root, as
 * {@link StoreServers#postgres(String...)} does). The standby is <em>synchronous</em>
 * ({@code synchronous_standby_names='*'}, {@code synchronous_commit=remote_apply}: no commit returns before the
 * standby applied it) or <em>asynchronous</em> (no synchronous standby: a commit returns once it is on the
 * primary's disk).
 *
 * <p>The settings are written with {@code ALTER SYSTEM} rather than on the command line, so that they travel with
 * the data directory into the standby's base backup and hold on whichever node is primary. A failover is
 * {@link #killPrimary()} then {@link #promote()}; the promoted node serves alone (its
 * {@code synchronous_standby_names} emptied, or every commit would wait for a standby that is gone, as Patroni's
 * non-strict synchronous mode does) until {@link #rebuildStandby()} makes the killed node a new standby of it from
 * a fresh base backup, on the same port, and makes it synchronous again. The killed primary is never started on
 * its old data: it could hold commits the promoted node never had, and would come back as a second primary.
 */
public final class PostgresStandbyPair implements AutoCloseable {

    private static final Duration REPLICATION_WAIT = Duration.ofSeconds(60);

    private final boolean synchronous;
    private final Node[] nodes = new Node[2];
    private int primary;
    private boolean primaryKilled;

    /** One server: its port is kept across rebuilds, so that the clients' host list stays valid. */
    private static final class Node {
        final int port;
        ServerProcess server;

        Node(ServerProcess server) {
            this.port = server.port();
            this.server = server;
        }
    }

    private PostgresStandbyPair(boolean synchronous) {
        this.synchronous = synchronous;
        try {
            nodes[0] = new Node(StoreServers.postgres());
            configureReplication(nodes[0].port, synchronous);
            nodes[1] = new Node(baseBackupOf(nodes[0].port, FreePorts.next()));
            awaitStandby();
        } catch (RuntimeException e) {
            close();
            throw e;
        }
    }

    /**
     * A primary whose every commit waits until the standby applied it ({@code synchronous_standby_names='*'},
     * {@code synchronous_commit=remote_apply}): promoting the standby loses no commit a client was told of.
     *
     * @throws IllegalStateException if PostgreSQL is not installed or a server does not start or replicate
     */
    public static PostgresStandbyPair synchronous() {
        return new PostgresStandbyPair(true);
    }

    /**
     * A primary with an asynchronous standby (PostgreSQL's default): a commit returns before the standby has it,
     * so a promotion loses what the standby had not received yet.
     *
     * @throws IllegalStateException if PostgreSQL is not installed or a server does not start or replicate
     */
    public static PostgresStandbyPair asynchronous() {
        return new PostgresStandbyPair(false);
    }

    /** Whether the standby is synchronous. */
    public boolean isSynchronous() {
        return synchronous;
    }

    /** The port of the node that is primary now. */
    public int primaryPort() {
        return nodes[primary].port;
    }

    /** The port of the other node (the standby, or the killed primary until it is rebuilt). */
    public int standbyPort() {
        return nodes[1 - primary].port;
    }

    /** Both ports, the first primary's first; they do not change across failovers and rebuilds. */
    public List<Integer> ports() {
        return List.of(nodes[0].port, nodes[1].port);
    }

    /** {@code 127.0.0.1:p1,127.0.0.1:p2}: the host list of a {@code postgres://} URI that reaches whichever is primary. */
    public String hosts() {
        return "127.0.0.1:" + nodes[0].port + ",127.0.0.1:" + nodes[1].port;
    }

    /** The server process of the node that is primary now. */
    public ServerProcess primaryServer() {
        return nodes[primary].server;
    }

    /** Kills the primary with -9 (its backends too): a crash. The standby stays a standby until {@link #promote()}. */
    public void killPrimary() {
        nodes[primary].server.kill();
        primaryKilled = true;
    }

    /**
     * Promotes the standby ({@code pg_ctl promote}, waiting until it accepts writes) and lets it commit without a
     * standby until {@link #rebuildStandby()}.
     *
     * @throws IllegalStateException if the primary was not killed first (two primaries would accept writes), or
     *                               if the promotion does not finish
     */
    public void promote() {
        if (!primaryKilled) {
            throw new IllegalStateException("kill the primary on port " + primaryPort() + " before promoting the"
                    + " standby on port " + standbyPort() + ": both would accept writes");
        }
        Node standby = nodes[1 - primary];
        StoreServers.runPostgresTool(standby.server.workDir(), "pg_ctl", "promote", "-w", "-t", "60", "-D",
                standby.server.workDir().resolve("data").toString());
        primary = 1 - primary;
        await("the promoted node on port " + standby.port + " accepting writes",
                () -> "f".equals(query(standby.port, "SELECT pg_is_in_recovery()")));
        if (synchronous) {
            // Alone now: a synchronous standby that is gone would hold every commit until it is rebuilt.
            query(standby.port, "ALTER SYSTEM SET synchronous_standby_names = ''");
            query(standby.port, "SELECT pg_reload_conf()");
        }
    }

    /** {@link #killPrimary()}, then {@link #promote()}. */
    public void failOver() {
        killPrimary();
        promote();
    }

    /**
     * Makes the killed node a standby of the promoted one again: its data directory replaced by a new base backup,
     * started on its old port, and, for a synchronous pair, named synchronous once it streams. Does nothing if no
     * primary was killed.
     *
     * @throws IllegalStateException if the new standby does not start or replicate in time
     */
    public void rebuildStandby() {
        if (!primaryKilled) {
            return;
        }
        Node old = nodes[1 - primary];
        if (old.server.isAlive()) {
            throw new IllegalStateException("the killed primary on port " + old.port + " was never promoted away from");
        }
        old.server.close();
        old.server = baseBackupOf(nodes[primary].port, old.port);
        primaryKilled = false;
        if (synchronous) {
            configureReplication(nodes[primary].port, true);
        }
        awaitStandby();
    }

    /**
     * Runs one SQL statement as superuser {@value StoreServers#POSTGRES_USER} on the node at {@code port} with
     * {@code psql} and returns its output without alignment (one row a line, columns separated by {@code |}).
     *
     * @throws IllegalStateException if {@code psql} fails or takes more than 30 s
     */
    public static String query(int port, String sql) {
        List<String> command = new ArrayList<>(List.of(StoreServers.postgresBinary("psql"), "-X", "-A", "-t", "-q",
                "-v", "ON_ERROR_STOP=1", "-h", "127.0.0.1", "-p", Integer.toString(port), "-U",
                StoreServers.POSTGRES_USER, "-d", "postgres", "-c", sql));
        try {
            Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
            byte[] output = process.getInputStream().readAllBytes();
            if (!process.waitFor(30, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                throw new IllegalStateException("psql did not finish within 30 s on port " + port + ": " + sql);
            }
            String text = new String(output, StandardCharsets.UTF_8).strip();
            if (process.exitValue() != 0) {
                throw new IllegalStateException("psql failed on port " + port + " (" + sql + "): " + text);
            }
            return text;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot run psql", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while running psql on port " + port, e);
        }
    }

    /** ALTER SYSTEM, so that the settings are in the data directory, which a base backup copies. */
    private static void configureReplication(int port, boolean synchronous) {
        query(port, "ALTER SYSTEM SET synchronous_standby_names = '" + (synchronous ? "*" : "") + "'");
        query(port, "ALTER SYSTEM SET synchronous_commit = '" + (synchronous ? "remote_apply" : "on") + "'");
        query(port, "SELECT pg_reload_conf()");
    }

    /** A standby of the server on {@code primaryPort}, in a new directory, listening on {@code port}. */
    private static ServerProcess baseBackupOf(int primaryPort, int port) {
        Path dir = StoreServers.ownedByPostgresUser(StoreServers.tempDir("postgres-" + port));
        Path data = dir.resolve("data");
        try {
            // -R writes standby.signal and primary_conninfo; -X stream copies the WAL the backup needs as it goes.
            StoreServers.runPostgresTool(dir, "pg_basebackup", "-h", "127.0.0.1", "-p", Integer.toString(primaryPort),
                    "-U", StoreServers.POSTGRES_USER, "-D", data.toString(), "-R", "-X", "stream", "-c", "fast",
                    "--no-sync");
            return StoreServers.startPostgres(port, data, dir, List.of()).deleteWorkDirOnClose();
        } catch (RuntimeException e) {
            ServerProcess.deleteRecursively(dir);
            throw e;
        }
    }

    /** Until the primary streams to the standby, as a synchronous standby when the pair is synchronous. */
    private void awaitStandby() {
        int port = nodes[primary].port;
        String wanted = synchronous ? "streaming|sync" : "streaming|async";
        await("the standby on port " + standbyPort() + " streaming from the primary on port " + port,
                () -> wanted.equals(query(port, "SELECT state || '|' || sync_state FROM pg_stat_replication")));
    }

    private static void await(String what, BooleanSupplier condition) {
        long deadline = System.nanoTime() + REPLICATION_WAIT.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                throw new IllegalStateException("not reached within " + REPLICATION_WAIT.toSeconds() + " s: " + what);
            }
            try {
                Thread.sleep(100); // polling the servers: nothing announces a state change of replication
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while awaiting " + what, e);
            }
        }
    }

    /** Stops both servers and deletes their directories. */
    @Override
    public void close() {
        for (Node node : nodes) {
            if (node != null) {
                node.server.close();
            }
        }
    }

    @Override
    public String toString() {
        return (synchronous ? "synchronous" : "asynchronous") + " PostgreSQL pair, primary on port " + primaryPort()
                + ", standby on port " + standbyPort();
    }
}
