package io.locksmith.postgres;

import io.locksmith.LockConfigurationException;
import io.locksmith.LockStoreException;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

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
                        + " docs/POSTGRES.md and grant this role SELECT, INSERT, UPDATE, DELETE on its tables and USAGE"
                        + " on its sequence, then add createSchema=false to the URI", e);
            }
            throw new LockStoreException("cannot create the lock table on " + store + ": " + e.getMessage(), e);
        }
    }

    /**
     * Checks that every object exists and the role may use it.
     *
     * @throws LockConfigurationException naming what is missing and how to fix it
     * @throws LockStoreException         if the database cannot be asked
     */
    void verify(Connection connection, String store) {
        List<String> problems = new ArrayList<>();
        try {
            for (String table : List.of(locks(), abandoned(), registry())) {
                if (!exists(connection, table)) {
                    problems.add("table " + table + " is missing");
                } else if (!allowed(connection, "has_table_privilege(?, 'SELECT, INSERT, UPDATE, DELETE')", table)) {
                    problems.add("the role may not SELECT, INSERT, UPDATE and DELETE on " + table);
                }
            }
            if (!exists(connection, fence())) {
                problems.add("sequence " + fence() + " is missing");
            } else if (!allowed(connection, "has_sequence_privilege(?, 'USAGE')", fence())) {
                problems.add("the role may not use sequence " + fence() + " (GRANT USAGE)");
            }
        } catch (SQLException e) {
            throw new LockStoreException("cannot check the lock table on " + store + ": " + e.getMessage(), e);
        }
        if (!problems.isEmpty()) {
            throw new LockConfigurationException(store + " is not ready for locks: " + String.join("; ", problems)
                    + ". Run the DDL from docs/POSTGRES.md as an owner (or let the client create it: createSchema=true)"
                    + " and grant this role SELECT, INSERT, UPDATE, DELETE on the tables and USAGE on the sequence");
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
