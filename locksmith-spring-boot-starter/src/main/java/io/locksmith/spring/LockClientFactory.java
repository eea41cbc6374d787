package io.locksmith.spring;

import io.locksmith.LockClient;
import io.locksmith.LockConfigurationException;
import io.locksmith.LockListener;
import io.locksmith.LockOptions;
import io.locksmith.spi.LockUri;

import java.util.List;
import java.util.Optional;

/** Turns {@link LocksmithProperties} into a {@link LockClient}: the one place that maps properties to the builder. */
final class LockClientFactory {

    /** URI parameters that set the same thing as the lease properties. */
    private static final List<String> URI_LEASE_PARAMETERS = List.of("lease", "renew", "maxHold");

    private LockClientFactory() {
    }

    static LockClient create(LocksmithProperties properties, List<LockListener> listeners,
                             List<LockClientBuilderCustomizer> customizers) {
        String uri = properties.getUri();
        if (uri == null || uri.isBlank()) {
            throw new LockConfigurationException("no lock store configured: set 'locksmith.uri' in application.yml"
                    + " (e.g. locksmith.uri: redis://127.0.0.1:6379, or mem:// for a single JVM) or the environment"
                    + " variable LOCKSMITH_URI; or define your own LockClient bean");
        }
        LockClient.Builder builder = LockClient.builder().uri(uri.strip());
        lockOptions(properties).ifPresent(builder::defaultLockOptions);
        if (properties.getClientId() != null) {
            builder.clientId(properties.getClientId());
        }
        if (properties.getMaxPollInterval() != null) {
            builder.maxPollInterval(properties.getMaxPollInterval());
        }
        listeners.forEach(builder::listener);
        customizers.forEach(customizer -> customizer.customize(builder));
        return builder.build();
    }

    /** The default lock options, when any lease property is set; empty leaves the URI's (or the built-in) defaults. */
    static Optional<LockOptions> lockOptions(LocksmithProperties properties) {
        boolean anySet = properties.getLease() != null || properties.getRenew() != null
                || properties.getMaxHold() != null || properties.getOnLoss() != null;
        if (!anySet) {
            return Optional.empty();
        }
        rejectLeaseParametersInUri(properties.getUri());
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
