package io.locksmith.spi;

import io.locksmith.LockConfigurationException;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A parsed store URI: {@code scheme://[user[:password]@]host[:port][,host[:port]...][/path][?key=value&...]}.
 * Several hosts are allowed (a cluster), which {@link java.net.URI} does not parse. Parameter values are
 * percent-decoded. A provider reads parameters through the typed accessors, which remember what was read:
 * the client then rejects every parameter nobody read, naming it, so a typo is never silently ignored.
 *
 * <p>{@link #toString()} hides the password.
 */
public final class LockUri {

    /** A host and port of a store URI. */
    public record HostPort(String host, int port) {
        @Override
        public String toString() {
            return host.contains(":") ? "[" + host + "]:" + port : host + ":" + port;
        }
    }

    private final String raw;
    private final String scheme;
    private final String userInfo;
    private final List<String> rawHosts;
    private final String path;
    private final Map<String, String> parameters;
    private final Set<String> consumed = ConcurrentHashMap.newKeySet();

    private LockUri(String raw, String scheme, String userInfo, List<String> rawHosts, String path,
                    Map<String, String> parameters) {
        this.raw = raw;
        this.scheme = scheme;
        this.userInfo = userInfo;
        this.rawHosts = rawHosts;
        this.path = path;
        this.parameters = parameters;
    }

    /**
     * Parses a URI.
     *
     * @throws NullPointerException       if {@code uri} is null
     * @throws LockConfigurationException if it is malformed, naming the bad part
     */
    public static LockUri parse(String uri) {
        Objects.requireNonNull(uri, "uri cannot be null");
        String text = uri.strip();
        if (text.isEmpty()) {
            throw new LockConfigurationException("lock store URI is empty; expected e.g. mem:// or redis://host:6379");
        }
        int colon = text.indexOf(':');
        if (colon <= 0) {
            throw new LockConfigurationException("lock store URI '" + redact(text)
                    + "' has no scheme; expected e.g. mem:// or redis://host:6379");
        }
        String scheme = text.substring(0, colon).toLowerCase(Locale.ROOT);
        if (!scheme.matches("[a-z][a-z0-9+.-]*")) {
            throw new LockConfigurationException("lock store URI '" + redact(text) + "' has an invalid scheme '"
                    + text.substring(0, colon) + "'");
        }
        String rest = text.substring(colon + 1);
        String query = null;
        int question = rest.indexOf('?');
        if (question >= 0) {
            query = rest.substring(question + 1);
            rest = rest.substring(0, question);
        }
        String userInfo = null;
        List<String> hosts = new ArrayList<>();
        String path = "";
        if (rest.startsWith("//")) {
            String authorityAndPath = rest.substring(2);
            int slash = authorityAndPath.indexOf('/');
            String authority = slash >= 0 ? authorityAndPath.substring(0, slash) : authorityAndPath;
            path = slash >= 0 ? authorityAndPath.substring(slash) : "";
            int at = authority.lastIndexOf('@');
            if (at >= 0) {
                userInfo = decode(authority.substring(0, at), text, "user info");
                authority = authority.substring(at + 1);
            }
            if (!authority.isEmpty()) {
                for (String host : authority.split(",", -1)) {
                    if (host.isBlank()) {
                        throw new LockConfigurationException("lock store URI '" + redact(text)
                                + "' has an empty host in its host list '" + authority + "'");
                    }
                    hosts.add(host.strip());
                }
            }
        } else {
            path = rest;
        }
        Map<String, String> parameters = new LinkedHashMap<>();
        if (query != null && !query.isEmpty()) {
            for (String pair : query.split("&")) {
                if (pair.isEmpty()) {
                    continue;
                }
                int eq = pair.indexOf('=');
                String key = decode(eq >= 0 ? pair.substring(0, eq) : pair, text, "parameter name");
                String value = eq >= 0 ? decode(pair.substring(eq + 1), text, "parameter '" + key + "'") : "";
                if (key.isEmpty()) {
                    throw new LockConfigurationException("lock store URI '" + redact(text)
                            + "' has a parameter without a name: '" + pair + "'");
                }
                if (parameters.put(key, value) != null) {
                    throw new LockConfigurationException("lock store URI '" + redact(text)
                            + "' sets parameter '" + key + "' twice");
                }
            }
        }
        return new LockUri(text, scheme, userInfo, List.copyOf(hosts), path, Collections.unmodifiableMap(parameters));
    }

    /** The scheme, lower case. */
    public String scheme() {
        return scheme;
    }

    /** The URI as given (with its password: never log it; {@link #toString()} hides it). */
    public String raw() {
        return raw;
    }

    /** The user info ({@code user} or {@code user:password}), percent-decoded. */
    public Optional<String> userInfo() {
        return Optional.ofNullable(userInfo);
    }

    /**
     * The user name of the user info: what stands before its first {@code :}, or all of it without one
     * ({@code postgres://app:secret@host}, {@code postgres://app@host}).
     *
     * @return the user, or empty without user info
     * @throws LockConfigurationException if there is user info without a user name ({@code :secret@host})
     */
    public Optional<String> user() {
        if (userInfo == null) {
            return Optional.empty();
        }
        int colon = userInfo.indexOf(':');
        String user = colon >= 0 ? userInfo.substring(0, colon) : userInfo;
        if (user.isEmpty()) {
            throw new LockConfigurationException("'" + this + "' has user info without a user name");
        }
        return Optional.of(user);
    }

    /** The password of the user info: what stands after its first {@code :}; empty without one. */
    public Optional<String> password() {
        int colon = userInfo == null ? -1 : userInfo.indexOf(':');
        return colon < 0 ? Optional.empty() : Optional.of(userInfo.substring(colon + 1));
    }

    /** The path, e.g. {@code /locks} or {@code /0}; empty when there is none. */
    public String path() {
        return path;
    }

    /** The hosts as written, without parsing ports. */
    public List<String> rawHosts() {
        return rawHosts;
    }

    /**
     * The hosts with ports; a host without port gets {@code defaultPort}.
     *
     * @throws LockConfigurationException if the URI names no host or a port is not a number in 1..65535
     */
    public List<HostPort> hosts(int defaultPort) {
        if (rawHosts.isEmpty()) {
            throw new LockConfigurationException("lock store URI '" + this + "' names no host; expected "
                    + scheme + "://host[:port]");
        }
        List<HostPort> result = new ArrayList<>(rawHosts.size());
        for (String host : rawHosts) {
            result.add(parseHost(host, defaultPort));
        }
        return List.copyOf(result);
    }

    private HostPort parseHost(String host, int defaultPort) {
        String name = host;
        String port = null;
        if (host.startsWith("[")) {
            int close = host.indexOf(']');
            if (close < 0) {
                throw new LockConfigurationException("lock store URI '" + this + "' has a malformed IPv6 host '" + host + "'");
            }
            name = host.substring(1, close);
            if (host.length() > close + 1) {
                if (host.charAt(close + 1) != ':') {
                    throw new LockConfigurationException("lock store URI '" + this + "' has a malformed host '" + host + "'");
                }
                port = host.substring(close + 2);
            }
        } else {
            int colon = host.lastIndexOf(':');
            if (colon >= 0) {
                name = host.substring(0, colon);
                port = host.substring(colon + 1);
            }
        }
        if (name.isEmpty()) {
            throw new LockConfigurationException("lock store URI '" + this + "' has an empty host name in '" + host + "'");
        }
        if (port == null) {
            return new HostPort(name, defaultPort);
        }
        try {
            int value = Integer.parseInt(port);
            if (value < 1 || value > 65535) {
                throw new NumberFormatException();
            }
            return new HostPort(name, value);
        } catch (NumberFormatException e) {
            throw new LockConfigurationException("lock store URI '" + this + "' has an invalid port '" + port
                    + "' for host '" + name + "' (expected 1..65535)");
        }
    }

    /** All parameters, read-only. Reading this map does not mark parameters as read. */
    public Map<String, String> parameters() {
        return parameters;
    }

    /** A string parameter, marking it read. */
    public Optional<String> parameter(String name) {
        consumed.add(name);
        return Optional.ofNullable(parameters.get(name));
    }

    /** A string parameter with a default. */
    public String string(String name, String defaultValue) {
        return parameter(name).orElse(defaultValue);
    }

    /**
     * A duration parameter such as {@code 500ms}, {@code 30s}, {@code 2m}, {@code 1h} or {@code PT30S}.
     *
     * @throws LockConfigurationException if present but not a positive duration
     */
    public Duration duration(String name, Duration defaultValue) {
        Optional<String> value = parameter(name);
        if (value.isEmpty()) {
            return defaultValue;
        }
        try {
            Duration parsed = Durations.parse(value.get());
            if (parsed.isZero() || parsed.isNegative()) {
                throw new IllegalArgumentException("must be positive");
            }
            return parsed;
        } catch (IllegalArgumentException e) {
            throw new LockConfigurationException("parameter '" + name + "' of '" + this + "' is not a positive duration: '"
                    + value.get() + "' (" + e.getMessage() + "; write e.g. 500ms, 30s, 2m)");
        }
    }

    /**
     * An integer parameter within {@code [min, max]}.
     *
     * @throws LockConfigurationException if present but not an integer in range
     */
    public int integer(String name, int defaultValue, int min, int max) {
        Optional<String> value = parameter(name);
        if (value.isEmpty()) {
            return defaultValue;
        }
        try {
            int parsed = Integer.parseInt(value.get().strip());
            if (parsed < min || parsed > max) {
                throw new NumberFormatException();
            }
            return parsed;
        } catch (NumberFormatException e) {
            throw new LockConfigurationException("parameter '" + name + "' of '" + this + "' must be an integer from "
                    + min + " to " + max + ", was '" + value.get() + "'");
        }
    }

    /**
     * A boolean parameter: {@code true}/{@code false} (also {@code yes}/{@code no}, {@code 1}/{@code 0}).
     *
     * @throws LockConfigurationException if present but not a boolean
     */
    public boolean bool(String name, boolean defaultValue) {
        Optional<String> value = parameter(name);
        if (value.isEmpty()) {
            return defaultValue;
        }
        switch (value.get().strip().toLowerCase(Locale.ROOT)) {
            case "true", "yes", "1", "on", "":
                return true;
            case "false", "no", "0", "off":
                return false;
            default:
                throw new LockConfigurationException("parameter '" + name + "' of '" + this
                        + "' must be true or false, was '" + value.get() + "'");
        }
    }

    /** Marks a parameter as read without reading it (for parameters handled elsewhere). */
    public void markRead(String name) {
        consumed.add(name);
    }

    /** The parameters that no accessor read, sorted. */
    public Set<String> unreadParameters() {
        Set<String> unread = new TreeSet<>(parameters.keySet());
        unread.removeAll(consumed);
        return unread;
    }

    /** The names of the parameters that were read, sorted. */
    public Set<String> readParameters() {
        return new TreeSet<>(consumed);
    }

    @Override
    public String toString() {
        return redact(raw);
    }

    /** Replaces the password of a URI string, if any, with {@code ***}. */
    public static String redact(String uri) {
        return uri.replaceAll("(://[^:/@?,]*:)[^@/?]*@", "$1***@")
                .replaceAll("(?i)(password=)[^&]*", "$1***");
    }

    private static String decode(String value, String uri, String what) {
        try {
            return URLDecoder.decode(value.replace("+", "%2B"), StandardCharsets.UTF_8);
        } catch (IllegalArgumentException e) {
            throw new LockConfigurationException("lock store URI '" + redact(uri) + "' has a malformed " + what
                    + " '" + value + "': " + e.getMessage());
        }
    }
}
