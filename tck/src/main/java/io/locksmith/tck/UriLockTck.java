package io.locksmith.tck;

import io.locksmith.tck.kits.ElectionKit;
import io.locksmith.tck.kits.ReadWriteKit;
import io.locksmith.tck.kits.SemaphoreKit;
import io.locksmith.LockClient;
import io.locksmith.LockConfigurationException;
import io.locksmith.mem.MemStore;
import io.locksmith.Capability;
import io.locksmith.spi.LockProvider;
import io.locksmith.spi.LockProviderFactory;
import io.locksmith.spi.LockUri;
import io.locksmith.spi.ProviderContext;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.TestInstancePostProcessor;

import java.time.Duration;
import java.util.EnumSet;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The kit against any store named by a URI, given as the JUnit configuration parameter (or system property)
 * {@value #URI_PARAMETER}; run by {@link TckRunner#run(String, java.io.PrintStream)} and {@code lockctl tck}.
 * Without the parameter every rule fails with a configuration error: it never passes by doing nothing.
 * The optional parameter {@value #SCALE_PARAMETER} stretches the timing ({@link TckTiming#scaledBy}); without it
 * the kit derives the scale from the store's minimum lease ({@link TckTiming#forMinimumTtl}), and a scale whose
 * short lease the store cannot honour is refused as a configuration error naming the scale that works.
 *
 * <p>Besides the lock's rules it runs the primitives' (SemaphoreKit, ReadWriteKit, ElectionKit: those of
 * {@link PrimitivesTck}), so that one run answers for everything the store serves.
 *
 * <p>Only {@code mem://} stores support {@link #expireBehindClientsBack}; on other URIs the rules that need
 * it are skipped, naming the hook: extend {@link LockTck} for those.
 */
@ExtendWith(UriLockTck.UriFromConfiguration.class)
public final class UriLockTck extends LockTck implements SemaphoreKit, ReadWriteKit, ElectionKit {

    /** The configuration parameter carrying the store URI. */
    public static final String URI_PARAMETER = "locksmith.tck.uri";
    /** The configuration parameter carrying a timing scale factor, e.g. {@code 2.5}. */
    public static final String SCALE_PARAMETER = "locksmith.tck.scale";
    /**
     * The configuration parameter carrying the capabilities the store is expected to declare (rule R8.11), as
     * {@code Capability} names separated by commas, e.g. {@code FENCING,RELEASE_NOTIFICATION}; {@code NONE} for
     * none. Without it R8.11 is skipped.
     */
    public static final String CAPABILITIES_PARAMETER = "locksmith.tck.capabilities";

    private String uri;
    private TckTiming timing = TckTiming.defaults();
    private Set<Capability> expectedCapabilities;

    @Override
    protected LockClient newClient() {
        return LockClient.open(uri);
    }

    @Override
    protected String storeUri() {
        return uri;
    }

    @Override
    protected void expireBehindClientsBack(String lockName) {
        LockUri parsed = LockUri.parse(uri);
        if (!parsed.scheme().equals("mem")) {
            super.expireBehindClientsBack(lockName);
        }
        MemStore.named(parsed.rawHosts().isEmpty() ? "" : parsed.rawHosts().get(0)).expire(lockName);
    }

    @Override
    protected TckTiming timing() {
        return timing;
    }

    @Override
    protected Set<Capability> expectedCapabilities() {
        if (expectedCapabilities == null) {
            return super.expectedCapabilities();
        }
        return expectedCapabilities;
    }

    /** The capabilities named by {@code value} ({@link #CAPABILITIES_PARAMETER}). */
    static Set<Capability> parseCapabilities(String value) {
        Set<Capability> parsed = EnumSet.noneOf(Capability.class);
        for (String name : value.split(",")) {
            String trimmed = name.strip().toUpperCase(java.util.Locale.ROOT);
            if (trimmed.isEmpty() || trimmed.equals("NONE")) {
                continue;
            }
            try {
                parsed.add(Capability.valueOf(trimmed));
            } catch (IllegalArgumentException e) {
                throw new LockConfigurationException("configuration parameter '" + CAPABILITIES_PARAMETER + "' names '"
                        + name.strip() + "', which is not a capability; use any of " + EnumSet.allOf(Capability.class)
                        + " separated by commas, or NONE", e);
            }
        }
        return parsed;
    }

    /** Reads the URI (and scale) from the JUnit configuration into each test instance. */
    static final class UriFromConfiguration implements TestInstancePostProcessor {
        @Override
        public void postProcessTestInstance(Object testInstance, ExtensionContext context) {
            UriLockTck kit = (UriLockTck) testInstance;
            kit.uri = context.getConfigurationParameter(URI_PARAMETER)
                    .filter(value -> !value.isBlank())
                    .orElseThrow(() -> new LockConfigurationException("UriLockTck needs the store URI in the JUnit"
                            + " configuration parameter '" + URI_PARAMETER + "' (or the system property of that name),"
                            + " e.g. -D" + URI_PARAMETER + "=redis://127.0.0.1:6379; run it with"
                            + " TckRunner.run(uri, System.out) or 'lockctl tck --uri URI'"));
            context.getConfigurationParameter(CAPABILITIES_PARAMETER)
                    .ifPresent(value -> kit.expectedCapabilities = parseCapabilities(value));
            Duration minimum = minimumTtlOf(kit.uri);
            java.util.Optional<String> scale = context.getConfigurationParameter(SCALE_PARAMETER);
            if (scale.isEmpty()) {
                kit.timing = TckTiming.forMinimumTtl(minimum);
                return;
            }
            TckTiming asked;
            try {
                asked = TckTiming.defaults().scaledBy(Double.parseDouble(scale.get()));
            } catch (IllegalArgumentException e) {
                throw new LockConfigurationException("configuration parameter '" + SCALE_PARAMETER
                        + "' must be a positive number, was '" + scale.get() + "'", e);
            }
            if (asked.shortLease().compareTo(minimum) < 0) {
                // A lease the store cannot honour is a setup error, not a list of rule violations.
                throw new LockConfigurationException(tooSmallScale(asked.scale(), minimum, kit.uri));
            }
            kit.timing = asked;
        }
    }

    /**
     * What to say when the scale {@code scale} gives a short lease under the store's minimum.
     */
    public static String tooSmallScale(double scale, Duration minimumTtl, String uri) {
        TckTiming at = TckTiming.defaults().scaledBy(scale);
        return "timing scale " + scale + " gives the kit a short lease of " + at.shortLease().toMillis() + " ms, under"
                + " the " + minimumTtl.toMillis() + " ms minimum of " + LockUri.redact(uri) + ": use scale "
                + TckTiming.scaleFor(minimumTtl) + " or more (without a scale the kit picks it)";
    }

    /**
     * The shortest lease the store at {@code uri} honours, as its provider states it
     * ({@link LockProvider#minimumTtl()}): one provider is opened and closed (once per URI in this JVM).
     *
     * @throws LockConfigurationException if the URI is invalid or no backend on the class path serves its scheme
     * @throws io.locksmith.LockStoreException if the store cannot be reached
     */
    public static Duration minimumTtlOf(String uri) {
        return MINIMUM_TTLS.computeIfAbsent(uri, UriLockTck::askMinimumTtl);
    }

    private static final Map<String, Duration> MINIMUM_TTLS = new ConcurrentHashMap<>();

    private static Duration askMinimumTtl(String uri) {
        LockUri parsed = LockUri.parse(uri);
        for (LockProviderFactory factory : ServiceLoader.load(LockProviderFactory.class, UriLockTck.class.getClassLoader())) {
            if (factory.schemes().contains(parsed.scheme())) {
                try (LockProvider provider = factory.create(parsed,
                        new ProviderContext("locksmith-tck-timing-" + UUID.randomUUID(), (grant, reason, cause) -> {
                        }))) {
                    return provider.minimumTtl();
                }
            }
        }
        // Let the client name what is missing, with its usual message.
        try (LockClient client = LockClient.open(uri)) {
            throw new LockConfigurationException("no backend for '" + LockUri.redact(uri) + "' gives its minimum lease"
                    + " time to the kit (" + client.describe() + ")");
        }
    }
}
