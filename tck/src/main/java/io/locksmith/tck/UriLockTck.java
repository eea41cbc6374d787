package io.locksmith.tck;

import io.locksmith.LockClient;
import io.locksmith.LockConfigurationException;
import io.locksmith.mem.MemStore;
import io.locksmith.spi.LockUri;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.TestInstancePostProcessor;

/**
 * The kit against any store named by a URI, given as the JUnit configuration parameter (or system property)
 * {@value #URI_PARAMETER}; run by {@link TckRunner#run(String, java.io.PrintStream)} and {@code lockctl tck}.
 * Without the parameter every rule fails with a configuration error: it never passes by doing nothing.
 * The optional parameter {@value #SCALE_PARAMETER} stretches the timing ({@link TckTiming#scaledBy}).
 *
 * <p>Only {@code mem://} stores support {@link #expireBehindClientsBack}; on other URIs the rules that need
 * it are skipped, naming the hook: extend {@link LockTck} for those.
 */
@ExtendWith(UriLockTck.UriFromConfiguration.class)
public final class UriLockTck extends LockTck {

    /** The configuration parameter carrying the store URI. */
    public static final String URI_PARAMETER = "locksmith.tck.uri";
    /** The configuration parameter carrying a timing scale factor, e.g. {@code 2.5}. */
    public static final String SCALE_PARAMETER = "locksmith.tck.scale";

    private String uri;
    private TckTiming timing = TckTiming.defaults();

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
            context.getConfigurationParameter(SCALE_PARAMETER).ifPresent(scale -> {
                try {
                    kit.timing = TckTiming.defaults().scaledBy(Double.parseDouble(scale));
                } catch (IllegalArgumentException e) {
                    throw new LockConfigurationException("configuration parameter '" + SCALE_PARAMETER
                            + "' must be a positive number, was '" + scale + "'", e);
                }
            });
        }
    }
}
