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
 * &sslcert=/path/client.crt&sslkey=/path/client.key&passwordEnv=NAME|passwordFile=/path]}. Grammar and meaning:
 * {@code docs/POSTGRES.md}.
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
 * @param sslCert       the client certificate (PEM) sent to a server that asks for one, if given
 * @param sslKey        its private key, if given: PKCS#8 PEM ({@code BEGIN PRIVATE KEY}), PKCS#8 DER ({@code .pk8})
 *                      or PKCS#12 ({@code .p12}, {@code .pfx}, which holds the certificate too)
 * @param pemKeyAlgorithm the algorithm of a PEM {@code sslKey} ({@code EC}, {@code RSA}), read from the key, for the
 *                      driver (which assumes RSA unless told)
 */
record PostgresSettings(List<LockUri.HostPort> hosts, String database, Optional<String> user,
                        Optional<String> password, Optional<PasswordFile> passwordFile, String schema, int poolSize,
                        Duration timeout, Duration connectTimeout, boolean createSchema, Duration cleanup, boolean allowAsyncStandby,
                        Optional<String> sslMode, Optional<String> sslRootCert, Optional<String> sslCert,
                        Optional<String> sslKey, Optional<String> pemKeyAlgorithm) {

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
    static final String PARAM_SSL_CERT = "sslcert";
    static final String PARAM_SSL_KEY = "sslkey";
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
        Optional<String> sslCert = uri.parameter(PARAM_SSL_CERT).map(String::strip);
        Optional<String> sslKey = uri.parameter(PARAM_SSL_KEY).map(String::strip);
        uri.markRead(PARAM_SSL_CERT);
        uri.markRead(PARAM_SSL_KEY);
        Optional<String> pemKeyAlgorithm = Optional.empty();
        if (sslCert.isPresent() || sslKey.isPresent()) {
            boolean pkcs12 = sslKey.map(key -> key.endsWith(".p12") || key.endsWith(".pfx")).orElse(false);
            if (sslKey.isEmpty() || (sslCert.isEmpty() && !pkcs12)) {
                throw new LockConfigurationException("'" + uri + "' has " + (sslKey.isEmpty() ? "sslcert without sslkey"
                        : "sslkey without sslcert") + "; a client certificate needs both (or sslkey=<file>.p12 alone)");
            }
            if (sslMode.isEmpty() || !List.of("require", "verify-ca", "verify-full").contains(sslMode.get())) {
                // With prefer or weaker the session may not use TLS at all, and the certificate would not be sent.
                throw new LockConfigurationException("parameters 'sslcert'/'sslkey' of '" + uri + "' need"
                        + " sslmode=require, verify-ca or verify-full (verify-full to check the server as well)");
            }
            for (Optional<String> file : List.of(sslCert, sslKey)) {
                if (file.isPresent() && !java.nio.file.Files.isReadable(java.nio.file.Path.of(file.get()))) {
                    throw new LockConfigurationException("'" + uri + "' names '" + file.get() + "' as its client"
                            + " certificate or key, which is not a readable file");
                }
            }
            pemKeyAlgorithm = pkcs12 || sslKey.get().endsWith(".pk8") ? Optional.empty()
                    : Optional.of(pemKeyAlgorithm(uri, java.nio.file.Path.of(sslKey.get())));
        }
        return new PostgresSettings(hosts, database, user, password, passwordFile, schema, poolSize, timeout,
                connectTimeout, createSchema, cleanup, allowAsyncStandby, sslMode, sslRootCert, sslCert, sslKey,
                pemKeyAlgorithm);
    }

    /** The password now: {@code passwordFile}'s current content, or the one given at open. */
    Optional<String> currentPassword() {
        return passwordFile.isPresent() ? passwordFile.map(PasswordFile::read) : password;
    }

    /** Where the password comes from, for messages: the URI or passwordEnv, or the file by its path. */
    String passwordSource() {
        return passwordFile.map(file -> "the password file '" + file.path() + "'").orElse("the URI or passwordEnv");
    }

    /**
     * The algorithm of the unencrypted PKCS#8 PEM key in {@code file} ({@code EC}, {@code RSA} or {@code Ed25519}): the
     * driver reads such a key as RSA unless told otherwise ({@code pemKeyAlgorithm}), and an EC key then fails the
     * handshake with a message that does not say why.
     *
     * @throws LockConfigurationException if the file holds no such key; never with the key
     */
    private static String pemKeyAlgorithm(LockUri uri, java.nio.file.Path file) {
        String text;
        try {
            text = java.nio.file.Files.readString(file, StandardCharsets.US_ASCII);
        } catch (java.io.IOException | java.io.UncheckedIOException e) {
            throw new LockConfigurationException("parameter 'sslkey' of '" + uri + "': cannot read '" + file + "'", e);
        }
        java.util.regex.Matcher key = java.util.regex.Pattern
                .compile("-----BEGIN PRIVATE KEY-----([^-]+)-----END PRIVATE KEY-----").matcher(text);
        if (key.find()) {
            byte[] der = java.util.Base64.getMimeDecoder().decode(key.group(1));
            for (String algorithm : List.of("EC", "RSA", "Ed25519")) {
                try {
                    java.security.KeyFactory.getInstance(algorithm)
                            .generatePrivate(new java.security.spec.PKCS8EncodedKeySpec(der));
                    return algorithm;
                } catch (java.security.GeneralSecurityException e) {
                    // another algorithm
                }
            }
        }
        throw new LockConfigurationException("parameter 'sslkey' of '" + uri + "' names '" + file + "', which holds no"
                + " unencrypted PKCS#8 key (BEGIN PRIVATE KEY) of EC, RSA or Ed25519; convert it with openssl pkcs8 -topk8"
                + " -nocrypt -in KEY -out KEY.pem, or give a .pk8 (DER) or .p12 file");
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
        return jdbcUrl("locksmith", connectTimeout);
    }

    /** As {@link #jdbcUrl()}, for a session that names itself {@code applicationName} and connects within {@code within}. */
    String jdbcUrl(String applicationName, Duration within) {
        String hostList = hosts.stream().map(PostgresSettings::hostPort).collect(Collectors.joining(","));
        long seconds = Math.max(1, (within.toMillis() + 999) / 1000);
        return "jdbc:postgresql://" + hostList + "/" + URLEncoder.encode(database, StandardCharsets.UTF_8)
                + "?targetServerType=primary&hostRecheckSeconds=" + HOST_RECHECK_SECONDS + "&connectTimeout=" + seconds + "&loginTimeout=" + seconds
                + "&ApplicationName=" + URLEncoder.encode(applicationName, StandardCharsets.UTF_8) + "&tcpKeepAlive=true";
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
                + sslCert.map(cert -> "&sslcert=" + cert).orElse("")
                + passwordFile.map(file -> "&" + file).orElse("");
    }

    @Override
    public String toString() {
        return describe();
    }
}
