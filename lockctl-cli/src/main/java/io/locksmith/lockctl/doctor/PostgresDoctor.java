package io.locksmith.lockctl.doctor;

import io.locksmith.LockStoreException;
import io.locksmith.postgres.PostgresClientSettings;
import io.locksmith.spi.LockUri;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * PostgreSQL checks, read-only, over JDBC, connecting as the lock client does (the backend's URL, credentials,
 * {@code passwordEnv} and TLS settings): server version and role (primary or standby), TLS as the server sees the
 * session, the login role (a superuser WARNs), the server clock against this machine's, the lock table and sequence
 * and the role's privileges on them (missing FAILs, more than needed WARNs), and the settings that decide whether
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
        String schema = PostgresClientSettings.schema(uri);
        // The lock client's own URL and properties (credentials, passwordEnv, TLS), so doctor sees what it would see.
        String url = PostgresClientSettings.jdbcUrl(uri, "lockctl-doctor", timeout);
        Properties properties = PostgresClientSettings.connectionProperties(uri);
        properties.setProperty("socketTimeout", Long.toString(Math.max(1, (timeout.toMillis() + 999) / 1000)));
        // The client's session options (statement and idle-in-transaction time-outs) would hide the server's own
        // settings, which doctor reports.
        properties.remove("options");
        List<Finding> findings = new ArrayList<>();
        long start = System.nanoTime();
        try (Connection connection = DriverManager.getConnection(url, properties)) {
            connection.setReadOnly(true);
            findings.add(Finding.ok("postgres connect", "primary at " + hosts + " in " + Millis.of(System.nanoTime() - start)));
            findings.add(role(connection));
            findings.add(version(connection));
            findings.add(transport(connection, uri));
            boolean superuser = text(connection, "SELECT current_setting('is_superuser')").equals("on");
            findings.add(identity(connection, uri, superuser));
            findings.add(clock(connection));
            findings.addAll(table(connection, schema));
            findings.add(privileges(connection, uri, superuser));
            findings.add(durability(connection));
            findings.add(replication(connection));
            findings.add(idleInTransaction(connection));
        } catch (SQLException e) {
            Finding notPrimary = notPrimary(url.replace("targetServerType=primary", "targetServerType=any"), properties,
                    hosts);
            if (notPrimary == null) {
                throw new LockStoreException("cannot reach a PostgreSQL primary: "
                        + PostgresClientSettings.connectFailure(uri, e), e);
            }
            findings.add(notPrimary);
        }
        return findings;
    }

    /**
     * How the session travels: the URI's {@code sslmode}, whether that checks the server's certificate, and what the
     * server says of this very session in {@code pg_stat_ssl} (a {@code prefer} that fell back to plain TCP shows
     * here, and a client certificate the server checked shows its subject).
     */
    static Finding transport(Connection connection, LockUri uri) throws SQLException {
        String check = "postgres TLS";
        Optional<String> mode = PostgresClientSettings.sslMode(uri);
        String sslMode = mode.map(m -> "sslmode=" + m).orElse("sslmode not set (the driver's default, prefer)");
        boolean ssl;
        String version;
        String clientDn;
        try (Statement statement = connection.createStatement();
             ResultSet rows = statement.executeQuery("SELECT ssl, version, cipher, client_dn FROM pg_stat_ssl"
                     + " WHERE pid = pg_backend_pid()")) {
            if (!rows.next()) {
                return Finding.warn(check, sslMode + "; pg_stat_ssl has no row for this session: cannot tell whether"
                        + " it uses TLS", "");
            }
            ssl = rows.getBoolean(1);
            version = rows.getString(2) + " " + rows.getString(3);
            clientDn = rows.getString(4);
        }
        if (!ssl) {
            return Finding.warn(check, "off: " + sslMode + ", and this session is plain TCP (pg_stat_ssl): the password"
                            + " and every lock's name and holder cross the network in clear text",
                    "ssl=on on the server, hostssl lines in pg_hba.conf, and sslmode=verify-full&sslrootcert=<CA PEM>"
                            + " in the URI (POSTGRES.md, TLS)");
        }
        String client = clientDn == null || clientDn.isEmpty() ? "no client certificate"
                : "client certificate " + clientDn;
        String detail = "on (" + version + ", pg_stat_ssl), " + sslMode;
        if (mode.isPresent() && mode.get().equals("verify-full")) {
            return Finding.ok(check, detail + ": the server's certificate is checked against "
                    + PostgresClientSettings.sslRootCert(uri).map(file -> "sslrootcert=" + file)
                    .orElse("the driver's default root.crt") + ", host name included; " + client);
        }
        if (mode.isPresent() && mode.get().equals("verify-ca")) {
            return Finding.warn(check, detail + ": the server's certificate is checked against "
                            + PostgresClientSettings.sslRootCert(uri).map(file -> "sslrootcert=" + file)
                            .orElse("the driver's default root.crt") + ", but not the host name it names; " + client,
                    "sslmode=verify-full: any server with a certificate of that authority could pose as this one");
        }
        return Finding.warn(check, detail + ": the server's certificate is not checked, so anyone between the client"
                        + " and the server can pose as it and read the password; " + client,
                "sslmode=verify-full&sslrootcert=<PEM of the authority that signed the server's certificate>");
    }

    /** Who the session is: its role, where the password came from, and whether the role is a superuser. */
    static Finding identity(Connection connection, LockUri uri, boolean superuser) throws SQLException {
        String check = "postgres role identity";
        String role = PostgresClientSettings.role(connection);
        String password = PostgresClientSettings.passwordSource(uri).map(source -> "password from " + source)
                .orElse("no password given (the server let the role in without one: trust, peer or a certificate)");
        String detail = "role " + role + ", " + password;
        if (superuser) {
            return Finding.warn(check, detail + "; a superuser: every privilege check is bypassed, so a bug or a stolen"
                            + " password can delete or rewrite any lock, reset the fencing sequence, or drop the table",
                    "log in as a role with only the lock table's grants (POSTGRES.md, Privileges): "
                            + String.join("; ", PostgresClientSettings.grants(uri, "<role>")));
        }
        return Finding.ok(check, detail + "; not a superuser");
    }

    /**
     * The role's privileges against what a lock client needs: the check the client makes at start (a missing grant
     * FAILs, as the client would refuse to start), and what the role may do beyond it (WARN).
     */
    static Finding privileges(Connection connection, LockUri uri, boolean superuser) throws SQLException {
        String check = "postgres privileges";
        if (superuser) {
            return Finding.warn(check, "a superuser bypasses every privilege: it needs no grant, and nothing limits it",
                    "use a role with exactly: " + String.join("; ", PostgresClientSettings.grants(uri, "<role>")));
        }
        String role = PostgresClientSettings.role(connection);
        List<String> missing = PostgresClientSettings.missingPrivileges(uri, connection);
        if (missing.stream().anyMatch(problem -> problem.endsWith(" is missing"))) {
            return Finding.warn(check, String.join("; ", missing) + ": cannot tell the role's privileges on objects"
                    + " that do not exist yet", "let the first client create them (createSchema=true) or run the DDL of"
                    + " docs/POSTGRES.md, then grant: " + String.join("; ", PostgresClientSettings.grants(uri, role)));
        }
        if (!missing.isEmpty()) {
            return Finding.fail(check, String.join("; ", missing) + ": a lock client refuses to start with this role",
                    String.join("; ", PostgresClientSettings.grants(uri, role)));
        }
        List<String> excess = PostgresClientSettings.excessPrivileges(uri, connection);
        if (!excess.isEmpty()) {
            return Finding.warn(check, "role " + role + " may take, renew and release locks, and more: "
                            + String.join("; ", excess),
                    "let an administrator own the objects and grant this role only: "
                            + String.join("; ", PostgresClientSettings.grants(uri, role))
                            + " (REVOKE the rest; POSTGRES.md, Privileges)");
        }
        return Finding.ok(check, "role " + role + " has exactly what a lock client needs: "
                + String.join("; ", PostgresClientSettings.grants(uri, role)).replace(" TO " + role, ""));
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
