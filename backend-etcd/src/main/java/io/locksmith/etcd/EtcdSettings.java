package io.locksmith.etcd;

import io.locksmith.LockConfigurationException;
import io.locksmith.spi.LockUri;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * The settings of an {@code etcd://} URI, validated:
 * {@code etcd://[user:password@]host[:port][,host[:port]...][?prefix=/locks/&timeout=5s]}.
 *
 * @param endpoints  the members, as {@code http://host:port}
 * @param prefix     the key prefix every lock key starts with; ends with {@code /}
 * @param timeout    how long one store request may take before it counts as failed
 * @param user       the etcd user, if authentication is on
 * @param password   the password of {@code user}
 */
record EtcdSettings(List<String> endpoints, String prefix, Duration timeout, Optional<String> user,
                    Optional<String> password) {

    static final int DEFAULT_PORT = 2379;
    static final String DEFAULT_PREFIX = "/locksmith/";
    static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(5);

    static final String PARAM_PREFIX = "prefix";
    static final String PARAM_TIMEOUT = "timeout";

    /**
     * Reads the settings from {@code uri}.
     *
     * @throws LockConfigurationException if the URI has a path, no host, a bad port or a bad parameter
     */
    static EtcdSettings from(LockUri uri) {
        if (!uri.path().isEmpty() && !uri.path().equals("/")) {
            throw new LockConfigurationException("'" + uri + "' has a path '" + uri.path()
                    + "'; etcd:// takes its key prefix as a parameter, e.g. etcd://host:2379?prefix=/locks/");
        }
        List<String> endpoints = uri.hosts(DEFAULT_PORT).stream()
                .map(host -> "http://" + host)
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
        Optional<String> password = uri.password();
        if (user.isPresent() && password.isEmpty()) {
            throw new LockConfigurationException("'" + uri + "' names user '" + user.get()
                    + "' without a password; write etcd://user:password@host:2379");
        }
        return new EtcdSettings(endpoints, prefix, timeout, user, password);
    }

    /** The store for messages, without credentials. */
    String describe() {
        return "etcd://" + endpoints.stream().map(e -> e.substring("http://".length())).collect(Collectors.joining(","))
                + "?prefix=" + prefix;
    }

    @Override
    public String toString() {
        return describe();
    }
}
