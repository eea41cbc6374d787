package io.locksmith.postgres;

import io.locksmith.spi.LockUri;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Properties;

/**
 * The connection settings a {@code postgres://} URI gives a JDBC session, for tools that open a session of their own on
 * the same database as the lock client would ({@code lockctl doctor}): the JDBC URL, credentials ({@code passwordEnv}
 * included), TLS ({@code sslmode}, {@code sslrootcert}, {@code sslcert}, {@code sslkey}), and the check of the role's
 * privileges that the client makes at start, read and made exactly as the backend does.
 */
public final class PostgresClientSettings {

    private PostgresClientSettings() {
    }

    /**
     * The JDBC URL of {@code uri} as the lock client builds it (every host, the primary preferred), for a session that
     * names itself {@code applicationName} and connects within {@code connectTimeout} (whole seconds).
     *
     * @throws io.locksmith.LockConfigurationException if the URI is not a valid {@code postgres://} URI
     */
    public static String jdbcUrl(LockUri uri, String applicationName, Duration connectTimeout) {
        return PostgresSettings.from(uri).jdbcUrl(applicationName, connectTimeout);
    }

    /**
     * The driver properties of {@code uri}: user, password (from the URI, the variable {@code passwordEnv} names, or
     * as {@code passwordFile} holds it now),
     * TLS, and the URI's statement time-out.
     *
     * @throws io.locksmith.LockConfigurationException if the URI is not valid, or {@code passwordEnv} names an unset
     *                                                 variable
     */
    public static Properties connectionProperties(LockUri uri) {
        return PostgresLockProviderFactory.connectionProperties(PostgresSettings.from(uri));
    }

    /** The store of {@code uri} for messages, without its password. */
    public static String describe(LockUri uri) {
        return PostgresSettings.from(uri).describe();
    }

    /** The lock table's schema ({@code public} by default). */
    public static String schema(LockUri uri) {
        return PostgresSettings.from(uri).schema();
    }

    /** The URI's {@code sslmode}; empty when it leaves the driver's default ({@code prefer}). */
    public static Optional<String> sslMode(LockUri uri) {
        return PostgresSettings.from(uri).sslMode();
    }

    /** The URI's {@code sslrootcert}: the authorities the server's certificate is checked against. */
    public static Optional<String> sslRootCert(LockUri uri) {
        return PostgresSettings.from(uri).sslRootCert();
    }

    /**
     * Where the password comes from, for messages: {@code "the environment variable NAME"}, {@code "the password file
     * '/path'"}, {@code "the URI"}, or empty without one. Never the password.
     */
    public static Optional<String> passwordSource(LockUri uri) {
        PostgresSettings settings = PostgresSettings.from(uri);
        if (settings.password().isEmpty()) {
            return Optional.empty();
        }
        if (settings.passwordFile().isPresent()) {
            return Optional.of(settings.passwordSource());
        }
        return Optional.of(uri.parameter(PostgresSettings.PARAM_PASSWORD_ENV).map(String::strip)
                .map(name -> "the environment variable " + name).orElse("the URI"));
    }

    /**
     * Why a session could not be opened, as the lock client says it at start: naming the store, never the password,
     * and for a refused login or a failed TLS handshake what to check.
     */
    public static String connectFailure(LockUri uri, Throwable failure) {
        return PostgresLockProviderFactory.connectFailure(PostgresSettings.from(uri), failure);
    }

    /**
     * What the lock client's check at start would fail on, as sentences (a missing object, or a privilege the
     * session's role lacks on one); empty when the role may take, renew and release locks.
     *
     * @throws SQLException if the database cannot be asked
     */
    public static List<String> missingPrivileges(LockUri uri, Connection connection) throws SQLException {
        return new PostgresSchema(schema(uri)).missing(connection);
    }

    /**
     * What the session's role may do to the lock objects beyond what a lock client needs, as sentences (owning them,
     * {@code DELETE}/{@code TRUNCATE} on the lock table, {@code UPDATE} on the fencing sequence, {@code CREATE} on the
     * schema); empty for a least-privilege role. Not meaningful for a superuser, who bypasses every check.
     *
     * @throws SQLException if the database cannot be asked
     */
    public static List<String> excessPrivileges(LockUri uri, Connection connection) throws SQLException {
        return new PostgresSchema(schema(uri)).excess(connection);
    }

    /** The GRANT statements that give {@code role} exactly what a lock client needs (as in docs/POSTGRES.md). */
    public static List<String> grants(LockUri uri, String role) {
        return new PostgresSchema(schema(uri)).grants(role);
    }

    /** The role a session acts as ({@code current_user}), quoted as an identifier where it needs it. */
    public static String role(Connection connection) throws SQLException {
        return PostgresSchema.role(connection);
    }
}
