package io.locksmith.postgres;

import io.locksmith.tck.server.ServerProcess;
import io.locksmith.tck.server.StoreServers;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;

/** A private PostgreSQL server for a test class, with helpers that reach behind a client's back. */
final class PostgresServer implements AutoCloseable {

    final ServerProcess process;

    private PostgresServer(ServerProcess process) {
        this.process = process;
    }

    static PostgresServer start(String... settings) {
        return new PostgresServer(StoreServers.postgres(settings));
    }

    /** A server that requires TLS, a password and a client certificate naming the role ({@code clientcert=verify-full}). */
    static PostgresServer startWithMutualTls(io.locksmith.tck.server.TestCertificates certificates) {
        return new PostgresServer(StoreServers.postgresWithMutualTls(certificates));
    }

    /** A server with TLS on, that lets roles other than the superuser in only over TLS and with their password. */
    static PostgresServer startWithTls(io.locksmith.tck.server.TestCertificates certificates) {
        return new PostgresServer(StoreServers.postgresWithTls(certificates));
    }

    int port() {
        return process.port();
    }

    /** A store URI on this server; {@code parameters} without the leading {@code ?}, may be empty. */
    String uri(String parameters) {
        return "postgres://" + StoreServers.POSTGRES_USER + "@127.0.0.1:" + port() + "/postgres"
                + (parameters.isEmpty() ? "" : "?" + parameters);
    }

    /** A superuser connection, for tests. */
    Connection connect() {
        try {
            return DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + port() + "/postgres",
                    StoreServers.POSTGRES_USER, "");
        } catch (SQLException e) {
            throw new IllegalStateException("cannot connect to " + process, e);
        }
    }

    /** Runs SQL as the superuser. */
    void execute(String sql) {
        try (Connection connection = connect(); Statement statement = connection.createStatement()) {
            statement.execute(sql);
        } catch (SQLException e) {
            throw new IllegalStateException("'" + sql + "' failed on " + process, e);
        }
    }

    /** Makes the row of {@code lockName} in {@code schema} expire now, as if its lease ran out. */
    void expire(String schema, String lockName) {
        try (Connection connection = connect(); PreparedStatement statement = connection.prepareStatement(
                "UPDATE " + schema + ".locksmith_locks SET expires_at = clock_timestamp() - interval '1 millisecond'"
                        + " WHERE name = ?")) {
            statement.setString(1, lockName);
            statement.executeUpdate();
        } catch (SQLException e) {
            throw new IllegalStateException("could not expire lock '" + lockName + "' on " + process, e);
        }
    }

    @Override
    public void close() {
        process.close();
    }
}
