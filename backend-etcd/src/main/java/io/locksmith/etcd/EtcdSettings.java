package io.locksmith.etcd;

import io.locksmith.LockConfigurationException;
import io.locksmith.spi.LockUri;
import io.locksmith.spi.PasswordFile;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.function.UnaryOperator;
import java.util.stream.Collectors;

/**
 * The settings of an {@code etcd://} or {@code etcds://} (TLS) URI, validated:
 * {@code etcd[s]://[user:password@]host[:port][,host[:port]...][?prefix=/locks/&timeout=5s&passwordEnv=NAME
 * &passwordFile=/path&trustStore=/path/ca.pem&clientCert=/path/client.pem&clientKey=/path/client.key]}. Grammar and
 * meaning: {@code docs/ETCD.md}.
 *
 * @param endpoints  the members, as {@code http://host:port} or {@code https://host:port}
 * @param prefix     the key prefix every lock key starts with; ends with {@code /}
 * @param timeout    how long one store request may take before it counts as failed
 * @param user       the etcd user, if authentication is on
 * @param password   the password of {@code user}: from the URI, from the environment variable {@code passwordEnv}
 *                   names, or as {@code passwordFile} held it at open
 * @param passwordFile the file read again at each login ({@code passwordFile}), so a rotated password is used
 * @param tls        whether the members are reached over TLS ({@code etcds://})
 * @param trustStore  the PEM file of the authorities that may sign a member's certificate; without it, the JDK's
 * @param clientCert the PEM certificate this client presents (mutual TLS), with {@code clientKey}
 * @param clientKey  its private key (PKCS#8 PEM)
 */
record EtcdSettings(List<String> endpoints, String prefix, Duration timeout, Optional<String> user,
                    Optional<String> password, Optional<PasswordFile> passwordFile, boolean tls,
                    Optional<Path> trustStore, Optional<Path> clientCert, Optional<Path> clientKey) {

    static final int DEFAULT_PORT = 2379;
    static final String DEFAULT_PREFIX = "/locksmith/";
    static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(5);

    static final String SCHEME = "etcd";
    static final String TLS_SCHEME = "etcds";

    static final String PARAM_PREFIX = "prefix";
    static final String PARAM_TIMEOUT = "timeout";
    static final String PARAM_PASSWORD_ENV = "passwordEnv";
    static final String PARAM_TRUST_STORE = "trustStore";
    static final String PARAM_CLIENT_CERT = "clientCert";
    static final String PARAM_CLIENT_KEY = "clientKey";

    /**
     * Reads the settings from {@code uri}.
     *
     * @throws LockConfigurationException if the URI has a path, no host, a bad port or a bad parameter
     */
    static EtcdSettings from(LockUri uri) {
        return from(uri, System::getenv);
    }

    /**
     * Reads the settings from {@code uri}, the password named by {@code passwordEnv} from {@code environment}.
     *
     * @throws LockConfigurationException as {@link #from(LockUri)}
     */
    static EtcdSettings from(LockUri uri, UnaryOperator<String> environment) {
        boolean tls = TLS_SCHEME.equals(uri.scheme());
        if (!uri.path().isEmpty() && !uri.path().equals("/")) {
            throw new LockConfigurationException("'" + uri + "' has a path '" + uri.path()
                    + "'; etcd:// takes its key prefix as a parameter, e.g. etcd://host:2379?prefix=/locks/");
        }
        String protocol = tls ? "https://" : "http://";
        List<String> endpoints = uri.hosts(DEFAULT_PORT).stream()
                .map(host -> protocol + host)
                .collect(Collectors.toUnmodifiableList());
        String prefix = uri.string(PARAM_PREFIX, DEFAULT_PREFIX).strip();
        if (prefix.isEmpty()) {
            throw new LockConfigurationException("parameter 'prefix' of '" + uri
                    + "' is empty; lock keys need a prefix of their own, e.g. prefix=/locks/");
        }
        if (!prefix.endsWith("/")) {
            // Keys are prefix + name + "/" + owner: without the slash, prefix "/locks" would also cover "/locksmith/...".
            prefix = prefix + "/";
        }
        Duration timeout = uri.duration(PARAM_TIMEOUT, DEFAULT_TIMEOUT);
        Optional<String> user = uri.user();
        Optional<PasswordFile> passwordFile = PasswordFile.of(uri);
        Optional<String> password = passwordFile.isPresent() ? passwordFile.map(PasswordFile::read)
                : password(uri, environment);
        if (user.isPresent() && password.isEmpty()) {
            throw new LockConfigurationException("'" + uri + "' names user '" + user.get()
                    + "' without a password; write etcd://user:password@host:2379 or add passwordEnv=VARIABLE or"
                    + " passwordFile=/path");
        }
        if (user.isEmpty() && password.isPresent()) {
            throw new LockConfigurationException("'" + uri + "' has a password but no user; write " + (passwordFile
                    .isPresent() ? "etcd://user@host:2379?passwordFile=..." : "etcd://user:password@host:2379"));
        }
        Optional<Path> trustStore = file(uri, PARAM_TRUST_STORE, tls);
        Optional<Path> clientCert = file(uri, PARAM_CLIENT_CERT, tls);
        Optional<Path> clientKey = file(uri, PARAM_CLIENT_KEY, tls);
        if (clientCert.isPresent() != clientKey.isPresent()) {
            throw new LockConfigurationException("'" + uri + "' has only one of 'clientCert' and 'clientKey'; mutual"
                    + " TLS needs both: the client's certificate and its private key (PKCS#8 PEM)");
        }
        return new EtcdSettings(endpoints, prefix, timeout, user, password, passwordFile, tls, trustStore, clientCert,
                clientKey);
    }

    /** The URI's password, or the value of the environment variable {@code passwordEnv} names; never both. */
    private static Optional<String> password(LockUri uri, UnaryOperator<String> environment) {
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

    /** A TLS file parameter: only on {@code etcds://} (on {@code etcd://} it would be ignored), and readable. */
    private static Optional<Path> file(LockUri uri, String parameter, boolean tls) {
        Optional<String> value = uri.parameter(parameter).map(String::strip);
        uri.markRead(parameter);
        if (value.isEmpty()) {
            return Optional.empty();
        }
        if (!tls) {
            // Otherwise the URI would only seem to encrypt: the connection would be plain text.
            throw new LockConfigurationException("parameter '" + parameter + "' of '" + uri + "' is only used over"
                    + " TLS; write etcds://host:2379?" + parameter + "=...");
        }
        Path path = Path.of(value.get());
        if (!Files.isReadable(path)) {
            throw new LockConfigurationException("parameter '" + parameter + "' of '" + uri + "' names '"
                    + value.get() + "', which is not a readable file");
        }
        return Optional.of(path);
    }

    /** Where the password comes from, for messages: the URI or passwordEnv, or the file by its path. */
    String passwordSource() {
        return passwordFile.map(file -> "the password file '" + file.path() + "'").orElse("the URI or passwordEnv");
    }

    /** The store for messages, without credentials. */
    String describe() {
        return (tls ? TLS_SCHEME : SCHEME) + "://" + user.map(u -> u + "@").orElse("")
                + endpoints.stream().map(e -> e.substring(e.indexOf("://") + 3)).collect(Collectors.joining(","))
                + "?prefix=" + prefix + passwordFile.map(file -> "&" + file).orElse("");
    }

    @Override
    public String toString() {
        return describe();
    }
}
