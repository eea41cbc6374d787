package io.locksmith.spring;

import io.locksmith.LockClient;
import io.locksmith.LockConfigurationException;
import io.locksmith.LockListener;
import io.locksmith.LockOptions;
import io.locksmith.spi.LockUri;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.core.env.Environment;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

/** Turns {@link LocksmithProperties} into a {@link LockClient}: the one place that maps properties to the builder. */
final class LockClientFactory {

    /** URI parameters that set the same thing as the lease properties. */
    private static final List<String> URI_LEASE_PARAMETERS = List.of("lease", "renew", "maxHold");
    /** How long a lazy start waits for the first attempt: a store that answers is used at once. */
    static final Duration LAZY_FIRST_ATTEMPT_WAIT = Duration.ofSeconds(2);
    private static final Logger LOG = LoggerFactory.getLogger("io.locksmith.spring");

    private LockClientFactory() {
    }

    /**
     * The store's URI: {@code locksmith.uri}, or without it the application's Redis ({@code spring.data.redis.*}) when
     * Spring Data Redis is on the class path. When both name a Redis, they must name the same servers.
     *
     * @throws LockConfigurationException if neither names a store, or both name different Redis servers
     */
    static String storeUri(LocksmithProperties properties, Environment environment, ClassLoader classLoader) {
        String uri = properties.getUri() == null ? "" : properties.getUri().strip();
        boolean readSpring = properties.getSpringDataRedis().isEnabled() && SpringDataRedisUri.present(classLoader);
        if (uri.isEmpty()) {
            Optional<String> spring = readSpring ? SpringDataRedisUri.from(environment, classLoader) : Optional.empty();
            if (spring.isPresent()) {
                LOG.info("Locksmith locks on the application's Redis (spring.data.redis): {}", LockUri.redact(spring.get()));
                return spring.get();
            }
            throw new LockConfigurationException("no lock store configured: set 'locksmith.uri' in application.yml"
                    + " (e.g. locksmith.uri: redis://127.0.0.1:6379, or mem:// for a single JVM) or the environment"
                    + " variable LOCKSMITH_URI; add Spring Data Redis to lock on the application's Redis"
                    + " (spring.data.redis.*); or define your own LockClient bean");
        }
        if (readSpring && SpringDataRedisUri.configured(environment)) {
            SpringDataRedisUri.requireSameServers(uri, SpringDataRedisUri.from(environment, classLoader).orElseThrow());
        }
        return uri;
    }

    static LockClient create(LocksmithProperties properties, String storeUri, List<LockListener> listeners,
                             List<LockClientBuilderCustomizer> customizers) {
        LockClient.Builder builder = builder(properties, storeUri, listeners);
        // Known before the store answers: the lazy client reports it, and the startup line names it.
        String clientId = properties.getClientId() != null ? properties.getClientId() : UUID.randomUUID().toString();
        builder.clientId(clientId);
        customizers.forEach(customizer -> customizer.customize(builder));
        String store = LockUri.redact(storeUri.strip());
        if (properties.getStartup() == LocksmithProperties.Startup.LAZY) {
            LazyLockClient client = LazyLockClient.open(builder::build, store, clientId, LAZY_FIRST_ATTEMPT_WAIT);
            if (client.isConnected()) {
                logStarted(client, properties);
            } else {
                LOG.info("Locksmith lock client {} started without its store {} (locksmith.startup=lazy): health is DOWN"
                        + " and lock calls fail at once until the store answers", clientId, store);
            }
            return client;
        }
        LockClient client = builder.build();
        logStarted(client, properties);
        return client;
    }

    private static void logStarted(LockClient client, LocksmithProperties properties) {
        LOG.info("Locksmith lock client {} on {} (startup={}, capabilities {})", client.clientId(), client.describe(),
                properties.getStartup().name().toLowerCase(java.util.Locale.ROOT), client.capabilities());
    }

    private static LockClient.Builder builder(LocksmithProperties properties, String uri, List<LockListener> listeners) {
        if (uri == null || uri.isBlank()) {
            throw new LockConfigurationException("no lock store configured: set 'locksmith.uri' in application.yml"
                    + " (e.g. locksmith.uri: redis://127.0.0.1:6379, or mem:// for a single JVM) or the environment"
                    + " variable LOCKSMITH_URI; or define your own LockClient bean");
        }
        LockClient.Builder builder = LockClient.builder().uri(uri.strip());
        lockOptions(properties, uri).ifPresent(builder::defaultLockOptions);
        if (properties.getMaxPollInterval() != null) {
            builder.maxPollInterval(properties.getMaxPollInterval());
        }
        listeners.forEach(builder::listener);
        return builder;
    }

    /** The default lock options, when any lease property is set; empty leaves the URI's (or the built-in) defaults. */
    static Optional<LockOptions> lockOptions(LocksmithProperties properties, String uri) {
        boolean anySet = properties.getLease() != null || properties.getRenew() != null
                || properties.getMaxHold() != null || properties.getOnLoss() != null;
        if (!anySet) {
            return Optional.empty();
        }
        rejectLeaseParametersInUri(uri);
        LockOptions.Builder options = LockOptions.builder();
        try {
            if (properties.getLease() != null) {
                options.leaseTime(properties.getLease());
            }
            if (Boolean.FALSE.equals(properties.getRenew())) {
                options.fixedLease();
            }
            if (properties.getMaxHold() != null) {
                options.maxHold(properties.getMaxHold());
            } else if (properties.getLease() != null && properties.getLease().compareTo(LockOptions.DEFAULT_MAX_HOLD) > 0) {
                // As with the URI: a long lease without a max hold gets max hold = lease, not a startup failure.
                options.maxHold(properties.getLease());
            }
            if (properties.getOnLoss() != null) {
                options.onLoss(properties.getOnLoss());
            }
            return Optional.of(options.build());
        } catch (IllegalArgumentException | NullPointerException e) {
            throw new LockConfigurationException("invalid locksmith.lease/renew/max-hold/on-loss: " + e.getMessage(), e);
        }
    }

    private static void rejectLeaseParametersInUri(String uri) {
        LockUri parsed = LockUri.parse(uri.strip());
        for (String parameter : URI_LEASE_PARAMETERS) {
            if (parsed.parameter(parameter).isPresent()) {
                throw new LockConfigurationException("lease options are set twice: '" + parameter + "' in locksmith.uri ("
                        + LockUri.redact(uri) + ") and locksmith.lease/renew/max-hold/on-loss properties; set them in"
                        + " one place");
            }
        }
    }
}
