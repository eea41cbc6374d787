package io.locksmith.postgres;

import io.locksmith.LockConfigurationException;
import io.locksmith.spi.LockUri;
import io.locksmith.spi.PasswordFile;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * The settings of a {@code postgres://} URI, validated:
 * {@code postgres://[user[:password]@]host[:port][,host[:port]...]/database[?schema=public&pool=4&timeout=5s
 * &connectTimeout=10s&createSchema=true&cleanup=30s&allowAsyncStandby=false&sslmode=verify-full&sslrootcert=/path/ca.crt
 * &passwordEnv=NAME|passwordFile=/path]}. Grammar and meaning: {@code docs/POSTGRES.md}.
 *
 * @param hosts         the servers; with several, the driver connects to the one that is the primary
 * @param database      the database
 * @param user          the role to log in as, if given (else the driver's default, the OS user name)
 * @param password      its password, if given: from the URI, from the environment variable {@code passwordEnv} names,
 *                      or as {@code passwordFile} held it at open
 * @param passwordFile  the file read again for each new session ({@code passwordFile}), so a rotated password is used
 * @param schema        the schema of the lock table, the fencing sequence and the registry table
 * @param poolSize      the most connections the pool opens (besides the one listening connection)
 * @param timeout       how long one call may take, waiting for a pooled connection included, before it fails
 * @param connectTimeout how long opening a new session may take (the server forks a process for it): at start,
 *                      and for the pool and the listening connection in the background
 * @param createSchema  whether to create the tables and the sequence at start if they are missing
 * @param cleanup       how often a client deletes rows whose lease ran out (and notifies waiters of them)
 * @param allowAsyncStandby whether to start on a primary whose streaming standbys are asynchronous (a promotion
 *                      can then lose grants and repeat fencing tokens); by default such a primary is refused
 * @param sslMode       the driver's {@code sslmode}, if given (else the driver's default, {@code prefer})
 * @param sslRootCert   the PEM file of the authorities the server's certificate must come from, if given
 */
record PostgresSettings(List<LockUri.HostPort> hosts, String database, Optional<String> user,
                        Optional<String> password, Optional<PasswordFile> passwordFile, String schema, int poolSize,
                        Duration timeout, Duration connectTimeout, boolean createSchema, Duration cleanup,
                        boolean allowAsyncStandby, Optional<String> sslMode, Optional<String> sslRootCert) {

    static final int DEFAULT_PORT = 5432;
    static final String DEFAULT_SCHEMA = "public";
    static final int DEFAULT_POOL_SIZE = 4;
    static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(5);
    static final Duration DEFAULT_CLEANUP = Duration.ofSeconds(30);
    static final Duration DEFAULT_CONNECT_TIMEOUT = Duration.ofSeconds(10);
    /** HikariCP refuses to wait less than this for a connection. */
    static final Duration MIN_TIMEOUT = Duration.ofMillis(250);

    static final String PARAM_SCHEMA = "schema";
    static final String PARAM_POOL = "pool";
    static final String PARAM_TIMEOUT = "timeout";
    static final String PARAM_CREATE_SCHEMA = "createSchema";
    static final String PARAM_CLEANUP = "cleanup";
    static final String PARAM_CONNECT_TIMEOUT = "connectTimeout";
    static final String PARAM_ALLOW_ASYNC_STANDBY = "allowAsyncStandby";
    static final String PARAM_SSL_MODE = "sslmode";
    static final String PARAM_SSL_ROOT_CERT = "sslrootcert";
    static final String PARAM_PASSWORD_ENV = "passwordEnv";
    /** The driver's modes, weakest first; the last two check the server's certificate. */
    static final List<String> SSL_MODES = List.of("disable", "allow", "prefer", "require", "verify-ca", "verify-full");
    /**
     * How soon the driver asks a host again whether it is the primary: it remembers a standby as such for this long
     * (its default is 10 s), and would not try the promoted one for that long after a failover.
     */
    static final int HOST_RECHECK_SECONDS = 2;

    /**
     * Reads the settings from {@code uri}.
     *
     * @throws LockConfigurationException if the URI names no database, has a bad schema name or a bad parameter
     */
    static PostgresSettings from(LockUri uri) {
        return from(uri, System::getenv);
    }

    /**
     * Reads the settings from {@code uri}, the password named by {@code passwordEnv} from {@code environment}.
     *
     * @throws LockConfigurationException as {@link #from(LockUri)}
     */
    static PostgresSettings from(LockUri uri, java.util.function.UnaryOperator<String> environment) {
        List<LockUri.HostPort> hosts = uri.hosts(DEFAULT_PORT);
        String database = uri.path().startsWith("/") ? uri.path().substring(1) : uri.path();
        if (database.isEmpty() || database.contains("/")) {
            throw new LockConfigurationException("'" + uri + "' must name one database as its path, e.g. "
                    + "postgres://user:password@host:5432/mydb");
        }
        String schema = uri.string(PARAM_SCHEMA, DEFAULT_SCHEMA).strip();
        if (!schema.matches("[a-z_][a-z0-9_$]{0,62}")) {
            // Written into DDL and statements as an identifier: only plain, unquoted-safe names.
            throw new LockConfigurationException("parameter 'schema' of '" + uri + "' must be a plain lower-case SQL"
                    + " identifier of at most 63 characters (letters, digits, _ and $, not starting with a digit),"
                    + " was '" + schema + "'");
        }
        int poolSize = uri.integer(PARAM_POOL, DEFAULT_POOL_SIZE, 1, 1000);
        Duration timeout = uri.duration(PARAM_TIMEOUT, DEFAULT_TIMEOUT);
        if (timeout.compareTo(MIN_TIMEOUT) < 0) {
            throw new LockConfigurationException("parameter 'timeout' of '" + uri + "' is " + timeout.toMillis()
                    + "ms; the connection pool waits at least " + MIN_TIMEOUT.toMillis() + "ms, so write timeout="
                    + MIN_TIMEOUT.toMillis() + "ms or more");
        }
        Duration connectTimeout = uri.duration(PARAM_CONNECT_TIMEOUT, DEFAULT_CONNECT_TIMEOUT);
        boolean createSchema = uri.bool(PARAM_CREATE_SCHEMA, true);
        Duration cleanup = uri.duration(PARAM_CLEANUP, DEFAULT_CLEANUP);
        boolean allowAsyncStandby = uri.bool(PARAM_ALLOW_ASYNC_STANDBY, false);
        Optional<String> user = uri.user();
        Optional<PasswordFile> passwordFile = PasswordFile.of(uri);
        if (passwordFile.isPresent() && user.isEmpty()) {
            throw new LockConfigurationException("'" + uri + "' has parameter 'passwordFile' but no user; write"
                    + " postgres://user@host:5432/db?passwordFile=...");
        }
        Optional<String> password = passwordFile.isPresent() ? passwordFile.map(PasswordFile::read)
                : password(uri, environment);
        Optional<String> sslMode = uri.parameter(PARAM_SSL_MODE).map(String::strip);
        uri.markRead(PARAM_SSL_MODE);
        if (sslMode.isPresent() && !SSL_MODES.contains(sslMode.get())) {
            throw new LockConfigurationException("parameter 'sslmode' of '" + uri + "' must be one of " + SSL_MODES
                    + ", was '" + sslMode.get() + "'");
        }
        Optional<String> sslRootCert = uri.parameter(PARAM_SSL_ROOT_CERT).map(String::strip);
        uri.markRead(PARAM_SSL_ROOT_CERT);
        if (sslRootCert.isPresent()) {
            if (sslMode.isEmpty() || !sslMode.get().startsWith("verify-")) {
                // The driver would not look at it, and the URI would only seem to check the server.
                throw new LockConfigurationException("parameter 'sslrootcert' of '" + uri + "' is only used with"
                        + " sslmode=verify-ca or sslmode=verify-full; add one of them");
            }
            if (!java.nio.file.Files.isReadable(java.nio.file.Path.of(sslRootCert.get()))) {
                throw new LockConfigurationException("parameter 'sslrootcert' of '" + uri + "' names '"
                        + sslRootCert.get() + "', which is not a readable file");
            }
        }
        return new PostgresSettings(hosts, database, user, password, passwordFile, schema, poolSize, timeout,
                connectTimeout, createSchema, cleanup, allowAsyncStandby, sslMode, sslRootCert);
    }

    /** The password now: {@code passwordFile}'s current content, or the one given at open. */
    Optional<String> currentPassword() {
        return passwordFile.isPresent() ? passwordFile.map(PasswordFile::read) : password;
    }

    /** Where the password comes from, for messages: the URI or passwordEnv, or the file by its path. */
    String passwordSource() {
        return passwordFile.map(file -> "the password file '" + file.path() + "'").orElse("the URI or passwordEnv");
    }

    /** The URI's password, or the value of the environment variable {@code passwordEnv} names; never both. */
    private static Optional<String> password(LockUri uri, java.util.function.UnaryOperator<String> environment) {
        Optional<String> variable = uri.parameter(PARAM_PASSWORD_ENV).map(String::strip);
        uri.markRead(PARAM_PASSWORD_ENV);
        if (variable.isEmpty()) {
            return uri.password();
        }
        if (uri.password().isPresent()) {
            throw new LockConfigurationException("'" + uri + "' has a password and parameter 'passwordEnv'; give"
                    + " only one of them");
        }
        String value = environment.apply(variable.get());
        if (value == null || value.isEmpty()) {
            throw new LockConfigurationException("parameter 'passwordEnv' of '" + uri + "' names the environment"
                    + " variable '" + variable.get() + "', which is not set or empty");
        }
        return Optional.of(value);
    }

    /**
     * The JDBC URL: every host, the primary preferred so a promoted replica is found after a failover, and the
     * connect and login time-outs of this URI (the driver counts whole seconds). Credentials go as properties.
     */
    String jdbcUrl() {
        String hostList = hosts.stream().map(PostgresSettings::hostPort).collect(Collectors.joining(","));
        long seconds = Math.max(1, (connectTimeout.toMillis() + 999) / 1000);
        return "jdbc:postgresql://" + hostList + "/" + URLEncoder.encode(database, StandardCharsets.UTF_8)
                + "?targetServerType=primary&hostRecheckSeconds=" + HOST_RECHECK_SECONDS + "&connectTimeout=" + seconds + "&loginTimeout=" + seconds
                + "&ApplicationName=locksmith&tcpKeepAlive=true";
    }

    private static String hostPort(LockUri.HostPort host) {
        String name = host.host().contains(":") ? "[" + host.host() + "]" : host.host();
        return name + ":" + host.port();
    }

    /** The store for messages, without credentials. */
    String describe() {
        return "postgres://" + user.map(u -> u + "@").orElse("")
                + hosts.stream().map(PostgresSettings::hostPort).collect(Collectors.joining(","))
                + "/" + database + "?schema=" + schema + sslMode.map(mode -> "&sslmode=" + mode).orElse("")
                + passwordFile.map(file -> "&" + file).orElse("");
    }

    @Override
    public String toString() {
        return describe();
    }
}
