package io.locksmith;

import io.locksmith.mem.MemLockProviderFactory;
import io.locksmith.spi.AcquireRequest;
import io.locksmith.spi.Grant;
import io.locksmith.spi.LockProvider;
import io.locksmith.spi.LockProviderFactory;
import io.locksmith.spi.LockUri;
import io.locksmith.spi.ProviderContext;

import java.time.Duration;
import java.util.Optional;
import java.util.Set;

/**
 * The stand-in stores of the lock-api tests, so that each test writes only the store behaviour it is about: a
 * {@link Stub} answers everything but acquire, renew and release plainly; a {@link OverMem} is {@code mem://}
 * with one call changed.
 */
final class StubStores {

    private StubStores() {
    }

    /**
     * A store of one scheme that is its own factory ({@code create} returns it), knows no holders
     * ({@code inspect} is empty), describes itself as {@code scheme://} and has nothing to close.
     */
    abstract static class Stub implements LockProvider, LockProviderFactory {
        private final String scheme;
        private final Set<Capability> capabilities;

        Stub(String scheme, Capability... capabilities) {
            this.scheme = scheme;
            this.capabilities = Set.of(capabilities);
        }

        @Override
        public Set<String> schemes() {
            return Set.of(scheme);
        }

        @Override
        public LockProvider create(LockUri uri, ProviderContext context) {
            return this;
        }

        @Override
        public Optional<LockInfo> inspect(String name) {
            return Optional.empty();
        }

        @Override
        public Set<Capability> capabilities() {
            return capabilities;
        }

        @Override
        public String describe() {
            return scheme + "://";
        }

        @Override
        public void close() {
        }
    }

    /**
     * {@code mem://} under another scheme: acquire, renew, release, inspect and close go to a mem store; the
     * test overrides the call it changes. The description, and the capabilities unless they are mem's, are the
     * test's.
     */
    static class OverMem implements LockProvider {
        final LockProvider mem;
        private final Set<Capability> capabilities;
        private final String description;

        /**
         * @param store the mem store's name: clients of one test that pass the same name share its locks
         */
        OverMem(String store, ProviderContext context, Set<Capability> capabilities, String description) {
            this.mem = new MemLockProviderFactory().create(LockUri.parse("mem://" + store), context);
            this.capabilities = capabilities;
            this.description = description;
        }

        /** With the mem store's own capabilities. */
        OverMem(String store, ProviderContext context, String description) {
            this.mem = new MemLockProviderFactory().create(LockUri.parse("mem://" + store), context);
            this.capabilities = mem.capabilities();
            this.description = description;
        }

        @Override
        public Optional<Grant> tryAcquire(AcquireRequest request) {
            return mem.tryAcquire(request);
        }

        @Override
        public boolean renew(Grant grant, Duration ttl) {
            return mem.renew(grant, ttl);
        }

        @Override
        public boolean release(Grant grant) {
            return mem.release(grant);
        }

        @Override
        public Optional<LockInfo> inspect(String name) {
            return mem.inspect(name);
        }

        @Override
        public Set<Capability> capabilities() {
            return capabilities;
        }

        @Override
        public String describe() {
            return description;
        }

        @Override
        public void close() {
            mem.close();
        }
    }
}
