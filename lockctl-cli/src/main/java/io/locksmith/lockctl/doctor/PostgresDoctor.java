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
        io.locksmith.spi.PasswordFile.of(uri).ifPresent(file -> properties.setProperty("password", file.read()));
        List<Finding> findings = new ArrayList<>();
        long start = System.nanoTime();
        try (Connection connection = DriverManager.getConnection(url, properties)) {
            connection.setReadOnly(true);
            findings.add(Finding.ok("postgres connect", "primary at " + hosts + " in " + Millis.of(System.nanoTime() - start)));
            findings.add(role(connection));
            findings.add(version(connection));
            findings.add(clock(connection));
            findings.addAll(table(connection, schema));
            findings.add(durability(connection));
            findings.add(replication(connection));
            findings.add(idleInTransaction(connection));
        } catch (SQLException e) {
            Finding notPrimary = notPrimary(url.replace("targetServerType=primary", "targetServerType=any"), properties,
                    hosts);
            if (notPrimary == null) {
                throw new LockStoreException("cannot reach a PostgreSQL primary at " + hosts + "/" + database + ": "
                        + e.getMessage(), e);
            }
            findings.add(notPrimary);
        }
        return findings;
    }

    /**
     * Why no primary was found when a server answers all the same: the URI names standbys only, or a primary whose
     * sessions are read-only by default, which the driver's {@code targetServerType=primary} also passes over
     * (it asks {@code transaction_read_only}). Null if no server answers at all.
     */
    private static Finding notPrimary(String anyServerUrl, Properties properties, String hosts) {
        try (Connection connection = DriverManager.getConnection(anyServerUrl, properties)) {
            if (inRecovery(connection)) {
                return Finding.fail("postgres role", "every server of " + hosts + " that answers is a standby"
                                + " (pg_is_in_recovery() is true): standbys refuse writes, and locks are rows written"
                                + " on the primary",
                        "name the primary in the URI (list every node: the client connects to whichever is primary,"
                                + " targetServerType=primary)");
            }
            return readOnlyPrimary(text(connection, "SHOW default_transaction_read_only"));
        } catch (SQLException e) {
            return null;
        }
    }

    private static Finding readOnlyPrimary(String defaultReadOnly) {
        return Finding.fail("postgres role", "a primary (not in recovery) whose sessions are read-only"
                        + " (default_transaction_read_only=" + defaultReadOnly + "): every lock write is refused, and"
                        + " the driver's targetServerType=primary may pass it over as a standby",
                "ALTER DATABASE (or ROLE) ... SET default_transaction_read_only = off for the lock database, or off in"
                        + " postgresql.conf");
    }

    /**
     * The driver picked a server that takes writes; {@code pg_is_in_recovery()} says whether it is a standby, in
     * case a setting or a pooler made a standby look like a primary.
     */
    private static Finding role(Connection connection) throws SQLException {
        if (inRecovery(connection)) {
            return Finding.fail("postgres role", "a standby (pg_is_in_recovery() is true): it refuses writes, and locks"
                            + " are rows written on the primary",
                    "name the primary in the URI (list every node: the client connects to whichever is primary,"
                            + " targetServerType=primary)");
        }
        String readOnly = text(connection, "SHOW default_transaction_read_only");
        if (readOnly.equals("on")) {
            return readOnlyPrimary(readOnly);
        }
        return Finding.ok("postgres role", "primary (not in recovery)");
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

    /** One row of {@code pg_stat_replication}: a standby streaming from this primary. */
    record Standby(String name, String state, String syncState) {
    }

    private static Finding replication(Connection connection) throws SQLException {
        String standbyNames = text(connection, "SHOW synchronous_standby_names");
        String synchronousCommit = text(connection, "SHOW synchronous_commit");
        List<Standby> standbys = new ArrayList<>();
        try (Statement statement = connection.createStatement();
             ResultSet rows = statement.executeQuery("SELECT coalesce(nullif(application_name, ''), host(client_addr),"
                     + " 'pid ' || pid), state, sync_state FROM pg_stat_replication ORDER BY 1")) {
            while (rows.next()) {
                standbys.add(new Standby(rows.getString(1), rows.getString(2), rows.getString(3)));
            }
        } catch (SQLException e) {
            return Finding.warn("postgres replication", "cannot read pg_stat_replication: " + e.getMessage(),
                    "grant pg_monitor to the role to let doctor see the standbys");
        }
        return replicationFinding(standbys, standbyNames, synchronousCommit);
    }

    /**
     * Whether a grant committed on the primary is on a standby before the client hears of it, from
     * {@code pg_stat_replication}, {@code synchronous_standby_names} and {@code synchronous_commit} (as the URI's
     * role sees it: a database or role setting overrides the server's). See docs/POSTGRES.md, "What PostgreSQL
     * guarantees here".
     */
    static Finding replicationFinding(List<Standby> standbys, String standbyNames, String synchronousCommit) {
        String check = "postgres replication";
        boolean namesSet = standbyNames != null && !standbyNames.isBlank();
        boolean commitWaits = switch (synchronousCommit) {
            case "on", "remote_apply", "remote_write" -> true;
            default -> false;
        };
        List<String> synchronous = new ArrayList<>();
        List<String> others = new ArrayList<>();
        for (Standby standby : standbys) {
            if (standby.syncState() == null) {
                return Finding.warn(check, standbys.size() + " standby(s), but their sync_state is hidden from this role;"
                        + " cannot tell whether grants reach a standby before they are confirmed",
                        "grant pg_monitor to the role to let doctor see the standbys");
            }
            String described = standby.name() + " " + standby.state() + "/" + standby.syncState();
            if (standby.syncState().equals("sync") || standby.syncState().equals("quorum")) {
                synchronous.add(described);
            } else {
                others.add(described);
            }
        }
        String settings = "synchronous_standby_names='" + (standbyNames == null ? "" : standbyNames)
                + "', synchronous_commit=" + synchronousCommit;
        if (namesSet && commitWaits && synchronous.isEmpty()) {
            return Finding.fail(check, (standbys.isEmpty() ? "no standby connected" : "no synchronous standby among "
                            + String.join(", ", others)) + ", " + settings + ": every commit waits for a synchronous"
                            + " standby that is not there, so every acquire, renewal and release hangs until its"
                            + " statement_timeout",
                    "start or reconnect the standby named in synchronous_standby_names (its application_name must"
                            + " match), or empty synchronous_standby_names to run the primary alone for now");
        }
        if (standbys.isEmpty()) {
            return Finding.ok(check, "no streaming standby: a single primary, so a failover is a restore, not a"
                    + " promotion (what was granted since the backup is lost with the server)");
        }
        if (synchronous.isEmpty()) {
            return Finding.warn(check, standbys.size() + " standby(s), all asynchronous (" + String.join(", ", others)
                            + "), " + settings + ": a grant committed on the primary and not yet on an asynchronous"
                            + " standby is lost at failover, like Redis' async replica, and the promoted standby can"
                            + " repeat fencing tokens; Locksmith clients refuse to start on this primary unless the URI"
                            + " says allowAsyncStandby=true",
                    "set synchronous_standby_names (e.g. 'ANY 1 (s1, s2)' or '*') and synchronous_commit=remote_apply"
                            + " (or on); see docs/POSTGRES.md, 'With a standby'");
        }
        String standbyList = "synchronous: " + String.join(", ", synchronous)
                + (others.isEmpty() ? "" : "; not synchronous: " + String.join(", ", others));
        if (!commitWaits) {
            return Finding.warn(check, standbyList + ", " + settings + ": commits do not wait for the synchronous"
                            + " standby, so a grant can be lost at failover as with an asynchronous one",
                    "set synchronous_commit=remote_apply (or on) for the lock database or role (ALTER DATABASE ... SET"
                            + " synchronous_commit = remote_apply) and in postgresql.conf");
        }
        if (synchronousCommit.equals("remote_write")) {
            return Finding.warn(check, standbyList + ", " + settings + ": a commit waits until the standby has written"
                            + " its WAL but not flushed it, so a grant is lost if the standby's machine crashes along with"
                            + " the primary",
                    "set synchronous_commit=remote_apply (or on): the standby then has the grant on disk, and with"
                            + " remote_apply visible, before the client hears of it");
        }
        return Finding.ok(check, standbyList + ", " + settings + ": every grant is on a synchronous standby before the"
                + " client hears of it; promoting that standby loses none"
                + (others.isEmpty() ? "" : " (promote only a synchronous one: the others may lack the latest grants)"));
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

    private static boolean inRecovery(Connection connection) throws SQLException {
        return text(connection, "SELECT pg_is_in_recovery()::text").equals("true");
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
