package io.locksmith.postgres;

import io.locksmith.tck.RawStoreSession;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Optional;
import java.util.UUID;

/**
 * The TCK's raw session (rule R2.6) on PostgreSQL: a JDBC connection as one role that runs SQL on a lock's row in
 * {@code SCHEMA.locksmith_locks}: {@code DELETE} (and, where the role may not delete, the expiry {@code UPDATE} that
 * frees a row), an {@code UPDATE} of its expiry, an {@code UPDATE} of its owner, a {@code SELECT}. A wrong password and
 * none are refused at login, when the session opens.
 */
final class PostgresRawSession implements RawStoreSession {

    private final Connection connection;
    private final String locks;

    PostgresRawSession(Connection connection, String schema) {
        this.connection = connection;
        this.locks = new PostgresSchema(schema).locks();
    }

    /** DELETE of the row; the lock user has no DELETE grant, so its strongest free is the row's expiry set to now. */
    @Override
    public void delete(String lockName) throws SQLException {
        SQLException deleteRefused = null;
        try {
            update("DELETE FROM " + locks + " WHERE name = ?", lockName);
        } catch (SQLException e) {
            deleteRefused = e;
        }
        try {
            update("UPDATE " + locks + " SET expires_at = clock_timestamp() - interval '1 millisecond' WHERE name = ?",
                    lockName);
        } catch (SQLException e) {
            if (deleteRefused != null) {
                e.addSuppressed(deleteRefused);
            }
            throw e;
        }
    }

    @Override
    public void extend(String lockName, Duration ttl) throws SQLException {
        update("UPDATE " + locks + " SET expires_at = clock_timestamp() + " + ttl.toMillis()
                + " * interval '1 millisecond' WHERE name = ?", lockName);
    }

    @Override
    public void takeOver(String lockName) throws SQLException {
        String intruder = "intruder-" + UUID.randomUUID();
        update("UPDATE " + locks + " SET owner_id = '" + intruder + "', holder = '" + intruder + "' WHERE name = ?",
                lockName);
    }

    @Override
    public Optional<String> read(String lockName) throws SQLException {
        try (PreparedStatement statement = connection.prepareStatement(
                "SELECT owner_id, holder, token, expires_at FROM " + locks + " WHERE name = ?")) {
            statement.setString(1, lockName);
            try (ResultSet row = statement.executeQuery()) {
                return row.next() ? Optional.of(row.getString(1) + " " + row.getString(2) + " " + row.getLong(3) + " "
                        + row.getString(4)) : Optional.empty();
            }
        }
    }

    private void update(String sql, String lockName) throws SQLException {
        try (PreparedStatement statement = connection.prepareStatement(sql)) {
            statement.setString(1, lockName);
            statement.executeUpdate();
        }
    }

    @Override
    public void close() throws SQLException {
        connection.close();
    }
}
