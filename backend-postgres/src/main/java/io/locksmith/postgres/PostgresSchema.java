package io.locksmith.postgres;

import io.locksmith.LockConfigurationException;
import io.locksmith.LockStoreException;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The objects a {@code postgres://} store keeps in its schema, their DDL (printed in {@code docs/POSTGRES.md}),
 * their idempotent creation, and the check at start that they exist and the role may use them.
 *
 * <ul>
 * <li>{@code locksmith_locks}: one row per held name. Rows whose lease ran out stay until they are taken over or
 *     cleaned up; every statement compares {@code expires_at} with the database clock, so such a row counts as
 *     free. No index on {@code expires_at}, so that a renewal, which only changes that column, is a HOT update
 *     (no index write); the fill factor leaves room for them on the page.</li>
 * <li>{@code locksmith_fence}: the sequence fencing tokens come from; it never goes back, also when a lock row
 *     is deleted.</li>
 * <li>{@code locksmith_abandoned}: owners whose acquire ended with an unknown outcome; a late copy of such an
 *     acquire is refused.</li>
 * <li>{@code locksmith_registry}: small records for client coordination (the migration phase guard).</li>
 * </ul>
 * Names are compared with the {@code "C"} collation: byte for byte, whatever the database's default.
 */
final class PostgresSchema {

    static final String LOCKS = "locksmith_locks";
    static final String FENCE = "locksmith_fence";
    static final String ABANDONED = "locksmith_abandoned";
    static final String REGISTRY = "locksmith_registry";
    /** Serializes concurrent creations: CREATE ... IF NOT EXISTS alone races on the catalog's unique indexes. */
    private static final long CREATE_LOCK_KEY = 0x6c6f636b736d6974L; // "locksmit"

    private final String schema;

    PostgresSchema(String schema) {
        this.schema = schema;
    }

    String locks() {
        return schema + "." + LOCKS;
    }

    String fence() {
        return schema + "." + FENCE;
    }

    String abandoned() {
        return schema + "." + ABANDONED;
    }

    String registry() {
        return schema + "." + REGISTRY;
    }

    /** The channel releases and clean-ups are announced on; the payload is the lock name. */
    String channel() {
        String channel = "locksmith." + schema;
        return channel.length() > 63 ? channel.substring(0, 63) : channel;
    }

    /** The DDL, one statement per element, idempotent. */
    List<String> ddl() {
        return List.of(
                "CREATE SCHEMA IF NOT EXISTS " + schema,
                "CREATE SEQUENCE IF NOT EXISTS " + fence() + " AS bigint",
                "CREATE TABLE IF NOT EXISTS " + locks() + " (\n"
                        + "  name       text COLLATE \"C\" PRIMARY KEY,\n"
                        + "  owner_id   text COLLATE \"C\" NOT NULL,\n"
                        + "  holder     text NOT NULL,\n"
                        + "  token      bigint NOT NULL,\n"
                        + "  expires_at timestamptz NOT NULL\n"
                        + ") WITH (fillfactor = 70)",
                "CREATE TABLE IF NOT EXISTS " + abandoned() + " (\n"
                        + "  owner_id   text COLLATE \"C\" PRIMARY KEY,\n"
                        + "  expires_at timestamptz NOT NULL\n"
                        + ")",
                "CREATE TABLE IF NOT EXISTS " + registry() + " (\n"
                        + "  key        text COLLATE \"C\" PRIMARY KEY,\n"
                        + "  value      text NOT NULL,\n"
                        + "  expires_at timestamptz\n"
                        + ")");
    }

    /**
     * Creates what is missing, in one transaction under an advisory lock, so clients starting together do not
     * trip over each other.
     *
     * @throws LockConfigurationException if the role may not create them, saying what to do instead
     * @throws LockStoreException         if the database fails otherwise
     */
    void create(Connection connection, String store) {
        try {
            boolean autoCommit = connection.getAutoCommit();
            connection.setAutoCommit(false);
            try (Statement statement = connection.createStatement()) {
                statement.execute("SELECT pg_advisory_xact_lock(" + CREATE_LOCK_KEY + ")");
                // Only what is missing: CREATE ... IF NOT EXISTS checks the CREATE right even when the object exists,
                // and a role that uses tables an owner made need not have it.
                List<String> ddl = ddl();
                if (!schemaExists(connection)) {
                    statement.execute(ddl.get(0));
                } else if (!allowed(connection, "has_schema_privilege(?, 'USAGE')", schema)) {
                    // Its objects cannot even be looked up: verify() names the missing grant, not a failed CREATE.
                    connection.rollback();
                    connection.setAutoCommit(autoCommit);
                    return;
                }
                List<String> objects = List.of(fence(), locks(), abandoned(), registry());
                for (int i = 0; i < objects.size(); i++) {
                    if (!exists(connection, objects.get(i))) {
                        statement.execute(ddl.get(i + 1));
                    }
                }
                connection.commit();
            } catch (SQLException e) {
                // A broken connection fails the rollback too (the pool closes it at once): the first failure is the one
                // that says what happened, so the later ones go with it instead of hiding it.
                try {
                    connection.rollback();
                    connection.setAutoCommit(autoCommit);
                } catch (SQLException cleanup) {
                    e.addSuppressed(cleanup);
                }
                throw e;
            }
            connection.setAutoCommit(autoCommit);
        } catch (SQLException e) {
            if ("42501".equals(e.getSQLState())) {
                throw new LockConfigurationException("the role of " + store + " may not create the lock table in"
                        + " schema '" + schema + "' (" + e.getMessage() + "). Have an owner run the DDL from"
                        + " docs/POSTGRES.md and grant this role what it needs (" + String.join("; ", grants("<role>"))
                        + "), then add createSchema=false to the URI", e);
            }
            throw new LockStoreException("cannot create the lock table on " + store + ": " + e.getMessage(), e);
        }
    }

    /**
     * The privileges the application's role needs on each object, and no more: the statements of
     * {@link PostgresLockProvider} and {@link PostgresRegistry} never delete a lock row (a name keeps its row) and
     * never change the schema. Printed as GRANT statements in {@code docs/POSTGRES.md}.
     */
    Map<String, List<String>> requiredTablePrivileges() {
        Map<String, List<String>> required = new LinkedHashMap<>();
        required.put(locks(), List.of("SELECT", "INSERT", "UPDATE"));
        required.put(abandoned(), List.of("SELECT", "INSERT", "UPDATE", "DELETE"));
        required.put(registry(), List.of("SELECT", "INSERT", "UPDATE", "DELETE"));
        return required;
    }

    /** The GRANT statements that give {@code role} what {@link #requiredTablePrivileges()} lists. */
    List<String> grants(String role) {
        List<String> grants = new ArrayList<>();
        grants.add("GRANT USAGE ON SCHEMA " + schema + " TO " + role);
        requiredTablePrivileges().forEach((table, privileges) ->
                grants.add("GRANT " + String.join(", ", privileges) + " ON TABLE " + table + " TO " + role));
        grants.add("GRANT USAGE ON SEQUENCE " + fence() + " TO " + role);
        return grants;
    }

    /**
     * Checks that every object exists and the role has each privilege it needs on it, so that a missing grant fails
     * the start, naming the privilege and the object, instead of a lock operation later.
     *
     * @throws LockConfigurationException naming each missing object and privilege and how to fix it
     * @throws LockStoreException         if the database cannot be asked
     */
    void verify(Connection connection, String store) {
        List<String> problems;
        String role;
        try {
            role = currentUser(connection);
            problems = missing(connection);
        } catch (SQLException e) {
            throw new LockStoreException("cannot check the lock table on " + store + ": " + e.getMessage(), e);
        }
        if (!problems.isEmpty()) {
            throw new LockConfigurationException(store + " is not ready for locks: " + String.join("; ", problems)
                    + ". Run the DDL from docs/POSTGRES.md as an owner (or let the client create it: createSchema=true)"
                    + " and grant the role what it needs: " + String.join("; ", grants(role)));
        }
    }

    /**
     * What {@link #verify} fails on, as sentences: each missing object, and each privilege of
     * {@link #requiredTablePrivileges()} (and USAGE on the schema and the sequence) the session's role lacks; empty
     * when the role may take, renew and release locks.
     *
     * @throws SQLException if the database cannot be asked
     */
    List<String> missing(Connection connection) throws SQLException {
        List<String> problems = new ArrayList<>();
        String role = currentUser(connection);
        if (!schemaExists(connection)) {
            problems.add("schema " + schema + " is missing");
        } else if (!allowed(connection, "has_schema_privilege(?, 'USAGE')", schema)) {
            // Without it no object in the schema can even be looked up: the checks below would fail.
            problems.add("role " + role + " lacks USAGE on schema " + schema);
        } else {
            for (Map.Entry<String, List<String>> table : requiredTablePrivileges().entrySet()) {
                if (!exists(connection, table.getKey())) {
                    problems.add("table " + table.getKey() + " is missing");
                    continue;
                }
                List<String> lacking = new ArrayList<>();
                for (String privilege : table.getValue()) {
                    if (!allowed(connection, "has_table_privilege(?, '" + privilege + "')", table.getKey())) {
                        lacking.add(privilege);
                    }
                }
                if (!lacking.isEmpty()) {
                    problems.add("role " + role + " lacks " + String.join(", ", lacking) + " on table "
                            + table.getKey());
                }
            }
            if (!exists(connection, fence())) {
                problems.add("sequence " + fence() + " is missing");
            } else if (!allowed(connection, "has_sequence_privilege(?, 'USAGE')", fence())) {
                problems.add("role " + role + " lacks USAGE on sequence " + fence());
            }
        }
        return problems;
    }

    /**
     * What the session's role may do to the lock objects beyond {@link #requiredTablePrivileges()}, as sentences:
     * owning one of them (an owner may drop or alter it, and grant itself anything), {@code DELETE} or
     * {@code TRUNCATE} on the lock table (a name keeps its row, so no lock client needs them: with them a role frees
     * every held lock at once and loses the names' fencing order), the sequence's {@code UPDATE} ({@code setval}: tokens
     * could go back), and {@code CREATE} on the schema. Objects that do not exist are left out; a superuser bypasses
     * every check, so it is not asked here (doctor reports a superuser on its own).
     *
     * @throws SQLException if the database cannot be asked
     */
    List<String> excess(Connection connection) throws SQLException {
        List<String> excess = new ArrayList<>();
        if (!schemaExists(connection) || !allowed(connection, "has_schema_privilege(?, 'USAGE')", schema)) {
            return excess;
        }
        String role = currentUser(connection);
        List<String> owned = new ArrayList<>();
        for (String object : List.of(locks(), fence(), abandoned(), registry())) {
            if (exists(connection, object) && allowed(connection,
                    "pg_has_role((SELECT relowner FROM pg_class WHERE oid = to_regclass(?)), 'USAGE')", object)) {
                owned.add(object);
            }
        }
        if (!owned.isEmpty()) {
            excess.add("role " + role + " owns " + String.join(", ", owned) + " (an owner may drop or alter them and"
                    + " grant itself any right)");
        }
        if (exists(connection, locks())) {
            List<String> beyond = new ArrayList<>();
            for (String privilege : List.of("DELETE", "TRUNCATE")) {
                if (allowed(connection, "has_table_privilege(?, '" + privilege + "')", locks())) {
                    beyond.add(privilege);
                }
            }
            if (!beyond.isEmpty()) {
                excess.add("role " + role + " has " + String.join(", ", beyond) + " on table " + locks()
                        + " (no lock client needs them: with them it can free every held lock at once and forget the"
                        + " names' fencing order)");
            }
        }
        if (exists(connection, fence()) && allowed(connection, "has_sequence_privilege(?, 'UPDATE')", fence())) {
            excess.add("role " + role + " has UPDATE on sequence " + fence() + " (setval: fencing tokens could go"
                    + " back)");
        }
        if (allowed(connection, "has_schema_privilege(?, 'CREATE')", schema)) {
            excess.add("role " + role + " has CREATE on schema " + schema + " (needed only to create the lock table:"
                    + " createSchema=true)");
        }
        return excess;
    }

    /** The role the session acts as ({@code current_user}), quoted as an identifier where it needs it. */
    static String role(Connection connection) throws SQLException {
        return currentUser(connection);
    }

    private static String currentUser(Connection connection) throws SQLException {
        try (Statement statement = connection.createStatement();
             ResultSet rows = statement.executeQuery("SELECT quote_ident(current_user)")) {
            rows.next();
            return rows.getString(1);
        }
    }

    private boolean schemaExists(Connection connection) throws SQLException {
        try (PreparedStatement query = connection.prepareStatement(
                "SELECT 1 FROM pg_namespace WHERE nspname = ?")) {
            query.setString(1, schema);
            try (ResultSet rows = query.executeQuery()) {
                return rows.next();
            }
        }
    }

    private static boolean exists(Connection connection, String object) throws SQLException {
        try (PreparedStatement query = connection.prepareStatement("SELECT to_regclass(?) IS NOT NULL")) {
            query.setString(1, object);
            try (ResultSet rows = query.executeQuery()) {
                rows.next();
                return rows.getBoolean(1);
            }
        }
    }

    private static boolean allowed(Connection connection, String check, String object) throws SQLException {
        try (PreparedStatement query = connection.prepareStatement("SELECT " + check)) {
            query.setString(1, object);
            try (ResultSet rows = query.executeQuery()) {
                rows.next();
                return rows.getBoolean(1);
            }
        }
    }
}
