package io.locksmith.lockctl.doctor;

import io.locksmith.LockStoreException;
import io.locksmith.spi.LockUri;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * PostgreSQL checks, read-only, over JDBC: server version and role (primary or standby), the server clock against
 * this machine's, the lock table and sequence and the role's rights on them, and the settings that decide whether
 * a granted lock survives a crash or a failover ({@code fsync}, {@code synchronous_commit}, synchronous standbys)
 * or can be blocked by a forgotten transaction ({@code idle_in_transaction_session_timeout}).
 */
final class PostgresDoctor implements StoreDoctor {

    private static final int DEFAULT_PORT = 5432;
    private static final int MIN_VERSION = 110000;

    @Override
    public Set<String> schemes() {
        return Set.of("postgres", "postgresql");
    }

    @Override
    public List<Finding> examine(LockUri uri, Duration timeout) {
        String hosts = uri.hosts(DEFAULT_PORT).stream().map(LockUri.HostPort::toString).collect(Collectors.joining(","));
        String database = uri.path().startsWith("/") ? uri.path().substring(1) : uri.path();
        String schema = uri.parameter("schema").orElse("public");
        long seconds = Math.max(1, (timeout.toMillis() + 999) / 1000);
        String url = "jdbc:postgresql://" + hosts + "/" + URLEncoder.encode(database, StandardCharsets.UTF_8)
                + "?targetServerType=primary&connectTimeout=" + seconds + "&socketTimeout=" + seconds
                + "&ApplicationName=lockctl-doctor";
        Properties properties = new Properties();
        uri.userInfo().ifPresent(info -> {
            int colon = info.indexOf(':');
            properties.setProperty("user", colon < 0 ? info : info.substring(0, colon));
            if (colon >= 0) {
                properties.setProperty("password", info.substring(colon + 1));
            }
        });
        List<Finding> findings = new ArrayList<>();
        long start = System.nanoTime();
        try (Connection connection = DriverManager.getConnection(url, properties)) {
            connection.setReadOnly(true);
            findings.add(Finding.ok("postgres connect", "primary at " + hosts + " in " + Millis.of(System.nanoTime() - start)));
            findings.add(version(connection));
            findings.add(clock(connection));
            findings.addAll(table(connection, schema));
            findings.add(durability(connection));
            findings.add(replication(connection));
            findings.add(idleInTransaction(connection));
        } catch (SQLException e) {
            throw new LockStoreException("cannot reach a PostgreSQL primary at " + hosts + "/" + database + ": "
                    + e.getMessage(), e);
        }
        return findings;
    }

    private static Finding version(Connection connection) throws SQLException {
        int version = Integer.parseInt(text(connection, "SHOW server_version_num"));
        String detail = "PostgreSQL " + text(connection, "SHOW server_version");
        if (version < MIN_VERSION) {
            return Finding.fail("postgres version", detail + ": Locksmith needs 11 or later (starts_with, ON CONFLICT)",
                    "upgrade the server");
        }
        return Finding.ok("postgres version", detail);
    }

    /**
     * Leases expire by the primary's clock alone, so a skew against this machine changes nothing by itself; a
     * large one says the server's clock is not synchronized, and a step of it expires or stretches every lease.
     */
    private static Finding clock(Connection connection) throws SQLException {
        long before = System.currentTimeMillis();
        long server;
        try (Statement statement = connection.createStatement();
             ResultSet rows = statement.executeQuery("SELECT (extract(epoch FROM clock_timestamp()) * 1000)::bigint")) {
            rows.next();
            server = rows.getLong(1);
        }
        long after = System.currentTimeMillis();
        long skew = server - (before + after) / 2;
        String detail = "server clock is " + Math.abs(skew) + " ms " + (skew >= 0 ? "ahead of" : "behind")
                + " this machine (round trip " + (after - before) + " ms)";
        if (Math.abs(skew) > 1000) {
            return Finding.warn("postgres clock", detail, "synchronize the server's clock with NTP (chrony), slewing"
                    + " rather than stepping: leases expire by the primary's clock, and a step moves every expiry");
        }
        return Finding.ok("postgres clock", detail + "; leases expire by the primary's clock");
    }

    private static List<Finding> table(Connection connection, String schema) throws SQLException {
        List<Finding> findings = new ArrayList<>();
        String locks = schema + ".locksmith_locks";
        String check = "postgres table " + locks;
        if (!bool(connection, "SELECT to_regclass(?) IS NOT NULL", locks)
                || !bool(connection, "SELECT to_regclass(?) IS NOT NULL", schema + ".locksmith_fence")) {
            findings.add(Finding.warn(check, "the lock table or its fencing sequence is missing",
                    "let the first client create it (createSchema=true, the default) or run the DDL of docs/POSTGRES.md"));
            return findings;
        }
        long held;
        long expired;
        try (Statement statement = connection.createStatement();
             ResultSet rows = statement.executeQuery("SELECT count(*) FILTER (WHERE expires_at > clock_timestamp()),"
                     + " count(*) FILTER (WHERE expires_at <= clock_timestamp()) FROM " + locks)) {
            rows.next();
            held = rows.getLong(1);
            expired = rows.getLong(2);
        }
        findings.add(Finding.ok(check, held + " lock(s) held, " + expired + " free name(s) (a name keeps its row"
                + " once used, for its fencing order)"));
        boolean rights = bool(connection, "SELECT has_table_privilege(?, 'SELECT, INSERT, UPDATE, DELETE')", locks)
                && bool(connection, "SELECT has_sequence_privilege(?, 'USAGE')", schema + ".locksmith_fence");
        if (!rights) {
            findings.add(Finding.fail("postgres rights", "the role may not write " + locks + " or draw from "
                    + schema + ".locksmith_fence", "GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA "
                    + schema + " and GRANT USAGE ON SEQUENCE " + schema + ".locksmith_fence to the role"));
        } else {
            findings.add(Finding.ok("postgres rights", "the role may take, renew and release locks"));
        }
        return findings;
    }

    private static Finding durability(Connection connection) throws SQLException {
        String fsync = text(connection, "SHOW fsync");
        String synchronousCommit = text(connection, "SHOW synchronous_commit");
        String detail = "fsync=" + fsync + ", synchronous_commit=" + synchronousCommit;
        if (synchronousCommit.equals("off") || fsync.equals("off")) {
            return Finding.warn("postgres durability", detail + ": a crash of the server can forget locks it granted",
                    "set fsync=on and synchronous_commit=on (or at least local) for the lock database");
        }
        return Finding.ok("postgres durability", detail + ": a granted lock survives a crash of the server");
    }

    private static Finding replication(Connection connection) throws SQLException {
        String standbys = text(connection, "SHOW synchronous_standby_names");
        long replicas;
        try (Statement statement = connection.createStatement();
             ResultSet rows = statement.executeQuery("SELECT count(*) FROM pg_stat_replication")) {
            rows.next();
            replicas = rows.getLong(1);
        } catch (SQLException e) {
            return Finding.warn("postgres replication", "cannot read pg_stat_replication: " + e.getMessage(),
                    "grant pg_monitor to the role to let doctor see the replicas");
        }
        if (replicas == 0) {
            return Finding.ok("postgres replication", "no streaming replica: a failover is a restore, not a promotion");
        }
        if (standbys.isBlank()) {
            return Finding.warn("postgres replication", replicas + " asynchronous replica(s): promoting one can lose the"
                    + " latest grants and repeat fencing tokens", "set synchronous_standby_names (and synchronous_commit"
                    + " on or remote_apply) so a promoted replica has every granted lock (clients refuse to start on"
                    + " this primary unless allowAsyncStandby=true); see docs/POSTGRES.md, 'With a standby'");
        }
        return Finding.ok("postgres replication", replicas + " replica(s), synchronous_standby_names='" + standbys + "'");
    }

    private static Finding idleInTransaction(Connection connection) throws SQLException {
        String value = text(connection, "SHOW idle_in_transaction_session_timeout");
        if (value.equals("0")) {
            return Finding.warn("postgres idle_in_transaction_session_timeout", "0 (off): a session left idle in a"
                    + " transaction that touched the lock table blocks acquires of those names until it ends",
                    "set idle_in_transaction_session_timeout (e.g. 60s) for the database; Locksmith's own sessions set it");
        }
        return Finding.ok("postgres idle_in_transaction_session_timeout", value);
    }

    private static String text(Connection connection, String sql) throws SQLException {
        try (Statement statement = connection.createStatement(); ResultSet rows = statement.executeQuery(sql)) {
            rows.next();
            return rows.getString(1);
        }
    }

    private static boolean bool(Connection connection, String sql, String argument) throws SQLException {
        try (PreparedStatement statement = connection.prepareStatement(sql)) {
            statement.setString(1, argument);
            try (ResultSet rows = statement.executeQuery()) {
                rows.next();
                return rows.getBoolean(1);
            }
        }
    }
}
