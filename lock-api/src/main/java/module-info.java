/**
 * Locksmith: distributed locks behind one API, for any store whose backend module is present.
 *
 * <p>Applications use {@link io.locksmith.LockClient}; backend authors implement the SPI in
 * {@code io.locksmith.spi} and register their {@link io.locksmith.spi.LockProviderFactory} with
 * {@code provides}. The shared client ({@code io.locksmith.internal}) is not exported.
 */
module io.locksmith {
    requires org.slf4j;
    // The default client id names the process (RuntimeMXBean).
    requires java.management;

    exports io.locksmith;
    exports io.locksmith.spi;
    exports io.locksmith.mem;
    exports io.locksmith.migrate;

    uses io.locksmith.spi.LockProviderFactory;
    // LockClient.builder() reaches the shared client through this service, so the API does not depend on it.
    uses io.locksmith.LockClient.Builder;

    provides io.locksmith.LockClient.Builder with io.locksmith.internal.ClientBuilder;

    provides io.locksmith.spi.LockProviderFactory with
            io.locksmith.mem.MemLockProviderFactory,
            io.locksmith.migrate.MigratingLockProviderFactory;
}
