package io.locksmith.tck.selftest;

import io.locksmith.Capability;
import io.locksmith.LockClient;
import io.locksmith.mem.MemStore;
import io.locksmith.spi.LockProviderFactory;
import io.locksmith.spi.ProviderClientBuilder;
import io.locksmith.tck.LockTck;
import io.locksmith.tck.kits.ElectionKit;
import io.locksmith.tck.kits.ReadWriteKit;
import io.locksmith.tck.kits.SemaphoreKit;

import java.util.EnumSet;
import java.util.Locale;
import java.util.Set;
import java.util.UUID;
import java.util.function.UnaryOperator;

/**
 * The kit against the {@link BrokenClients}: each kit's {@code newClient()} is a broken client over a real one, so the
 * kits of the shared client's rules (ReentryKit, HotLockKit, AsyncKit), which take their clients from it, run over
 * the broken client.
 * Static nested classes named {@code *Tck} so that surefire does not run them on its own; {@code BrokenClientsTest}
 * runs them through the launcher and checks which rules fail.
 */
final class BrokenClientKits {

    private BrokenClientKits() {
    }

    /** A kit over a fresh mem:// store per rule, whose clients are {@link #broken} ones. */
    abstract static class MemClientTck extends LockTck implements SemaphoreKit, ReadWriteKit, ElectionKit {
        private final String store = "broken-client-" + UUID.randomUUID();

        /** The broken client over {@code real}. */
        abstract LockClient broken(LockClient real);

        @Override
        protected LockClient newClient() {
            return broken(LockClient.open(storeUri()));
        }

        @Override
        protected String storeUri() {
            return "mem://" + store;
        }

        @Override
        protected Set<Capability> expectedCapabilities() {
            return EnumSet.of(Capability.FENCING, Capability.RELEASE_NOTIFICATION);
        }

        @Override
        protected void expireBehindClientsBack(String lockName) {
            MemStore.named(store).expire(lockName);
        }
    }

    /** The control: the forwarding decorator alone changes nothing, so every failure below is its variant's bug. */
    static class ForwardingClientTck extends MemClientTck {
        @Override
        LockClient broken(LockClient real) {
            return new BrokenClients.ForwardingClient(real);
        }
    }

    static class IgnoresHandOffTck extends MemClientTck {
        @Override
        LockClient broken(LockClient real) {
            return new BrokenClients.ThreadMapReentryClient(real, BrokenClients.ReentryBug.IGNORES_HAND_OFF);
        }
    }

    static class IgnoresNonReentrantOptionTck extends MemClientTck {
        @Override
        LockClient broken(LockClient real) {
            return new BrokenClients.ThreadMapReentryClient(real, BrokenClients.ReentryBug.IGNORES_NON_REENTRANT_OPTION);
        }
    }

    static class BindsAsyncLeaseToItsCallerTck extends MemClientTck {
        @Override
        LockClient broken(LockClient real) {
            return new BrokenClients.ThreadMapReentryClient(real,
                    BrokenClients.ReentryBug.BINDS_ASYNC_LEASE_TO_ITS_CALLER);
        }
    }

    static class AsyncReentryByClientTck extends MemClientTck {
        @Override
        LockClient broken(LockClient real) {
            return new BrokenClients.AsyncReentryByClientClient(real);
        }
    }

    static class CancelNotPassedToThePoolTck extends MemClientTck {
        @Override
        LockClient broken(LockClient real) {
            return new BrokenClients.BlockingOnAPoolClient(real, true);
        }
    }

    static class LeaseBoundToAPoolThreadTck extends MemClientTck {
        @Override
        LockClient broken(LockClient real) {
            return new BrokenClients.BlockingOnAPoolClient(real, false);
        }
    }

    static class AsyncWaitInTheWrongUnitTck extends MemClientTck {
        @Override
        LockClient broken(LockClient real) {
            return new BrokenClients.AsyncWaitInTheWrongUnitClient(real);
        }
    }

    static class SingleFlightAsyncTck extends MemClientTck {
        @Override
        LockClient broken(LockClient real) {
            return new BrokenClients.SingleFlightAsyncClient(real);
        }
    }

    static class AsyncKeyedByClientTck extends MemClientTck {
        @Override
        LockClient broken(LockClient real) {
            return new BrokenClients.AsyncKeyedByClientClient(real);
        }
    }

    static class AsyncRetriesAtTheBoundTck extends MemClientTck {
        @Override
        LockClient broken(LockClient real) {
            return new BrokenClients.AsyncRetriesAtTheBoundClient(real);
        }
    }

    /**
     * A kit over a fresh {@link SerialToyStore} per rule, whose clients are {@link #client} over the real shared
     * client: a store where a thousand uncoalesced waiters collapse the throughput, as on a real store.
     */
    abstract static class SerialStoreTck extends LockTck {
        private final SerialToyStore store = new SerialToyStore();
        private final String scheme = "serial-" + getClass().getSimpleName().toLowerCase(Locale.ROOT).replace("tck", "");

        /** The client under test over {@code real}. */
        abstract UnaryOperator<LockClient> client();

        @Override
        protected LockClient newClient() {
            return client().apply(ProviderClientBuilder.create().uri(storeUri()).factory(storeFactory(scheme)).build());
        }

        @Override
        protected String storeUri() {
            return scheme + "://";
        }

        @Override
        protected LockProviderFactory storeFactory(String scheme) {
            return store.factory(scheme);
        }

        @Override
        protected Set<Capability> expectedCapabilities() {
            return EnumSet.of(Capability.FENCING, Capability.RELEASE_NOTIFICATION);
        }
    }

    /** The control: the shared client as it is passes R7.11 on the store where the polling one collapses. */
    static class CorrectClientOverASerialStoreTck extends SerialStoreTck {
        @Override
        UnaryOperator<LockClient> client() {
            return UnaryOperator.identity();
        }
    }

    static class PollingClientOverASerialStoreTck extends SerialStoreTck {
        @Override
        UnaryOperator<LockClient> client() {
            return BrokenClients.PollingClient::new;
        }
    }

    static class LenientPermitsTck extends MemClientTck {
        @Override
        LockClient broken(LockClient real) {
            return new BrokenPrimitiveClients.LenientPermitsClient(real);
        }
    }

    static class ReleasesTheLatestPermitTck extends MemClientTck {
        @Override
        LockClient broken(LockClient real) {
            return new BrokenPrimitiveClients.ReleasesTheLatestPermitClient(real);
        }
    }

    static class DowngradeWithAGapTck extends MemClientTck {
        @Override
        LockClient broken(LockClient real) {
            return new BrokenPrimitiveClients.DowngradeWithAGapClient(real);
        }
    }

    static class SilentUpgradeTck extends MemClientTck {
        @Override
        LockClient broken(LockClient real) {
            return new BrokenPrimitiveClients.SilentUpgradeClient(real);
        }
    }

    static class ObserverSkipsNoLeaderTck extends MemClientTck {
        @Override
        LockClient broken(LockClient real) {
            return new BrokenPrimitiveClients.ObserverSkipsNoLeaderClient(real);
        }
    }
}
