package io.locksmith.tck.selftest;

import io.locksmith.LockClient;
import io.locksmith.Capability;
import io.locksmith.spi.LockProviderFactory;
import io.locksmith.spi.ProviderClientBuilder;
import io.locksmith.tck.LockTck;

import java.util.EnumSet;
import java.util.Locale;
import java.util.Set;

/**
 * The kit against the {@link ToyStore}: once correct, once per {@link Flaw}. Static nested classes named
 * {@code *Tck} so that surefire does not run them on its own; {@code BrokenProvidersTest} runs them through
 * the launcher and checks which rules fail.
 */
final class ToyKits {

    private ToyKits() {
    }

    /** A kit over a fresh toy store per rule; subclasses choose the flaws. */
    abstract static class ToyTck extends LockTck {
        private final ToyStore store = new ToyStore(flaws(), fair(), sessionBound());
        private final String scheme = "broken-" + getClass().getSimpleName().toLowerCase(Locale.ROOT).replace("tck", "");

        abstract Set<Flaw> flaws();

        boolean fair() {
            return false;
        }

        boolean sessionBound() {
            return false;
        }

        @Override
        protected LockClient newClient() {
            return ProviderClientBuilder.create().uri(storeUri()).factory(storeFactory(scheme)).build();
        }

        @Override
        protected String storeUri() {
            return scheme + "://";
        }

        @Override
        protected LockProviderFactory storeFactory(String scheme) {
            return new ToyProviderFactory(scheme, store);
        }

        @Override
        protected void expireBehindClientsBack(String lockName) {
            store.expire(lockName);
        }

        /** What the toy store promises: fencing and notification, and its queue or its session where it has one. */
        @Override
        protected Set<Capability> expectedCapabilities() {
            Set<Capability> expected = EnumSet.of(Capability.FENCING, Capability.RELEASE_NOTIFICATION);
            if (sessionBound()) {
                expected.add(Capability.SESSION_BOUND);
            }
            if (fair()) {
                expected.add(Capability.FAIR);
                expected.add(Capability.INSPECT_WAITERS);
            }
            return expected;
        }

        @Override
        protected void endStoreSession(io.locksmith.spi.LockProvider storeProvider) {
            if (!sessionBound()) {
                throw new UnsupportedOperationException("the toy store has sessions only when session-bound");
            }
            ((ToyProviderFactory.ToyProvider) storeProvider).endSession();
        }
    }

    static class CorrectToyTck extends ToyTck {
        @Override
        Set<Flaw> flaws() {
            return EnumSet.noneOf(Flaw.class);
        }
    }

    static class CorrectFairToyTck extends ToyTck {
        @Override
        Set<Flaw> flaws() {
            return EnumSet.noneOf(Flaw.class);
        }

        @Override
        boolean fair() {
            return true;
        }
    }

    /** Like a ZooKeeper store: no TTL, the lock lives with the session; the shared client enforces lease times. */
    static class CorrectSessionBoundToyTck extends ToyTck {
        @Override
        Set<Flaw> flaws() {
            return EnumSet.noneOf(Flaw.class);
        }

        @Override
        boolean sessionBound() {
            return true;
        }
    }

    static class ReleaseWithoutOwnerCheckTck extends ToyTck {
        @Override
        Set<Flaw> flaws() {
            return EnumSet.of(Flaw.RELEASE_WITHOUT_OWNER_CHECK);
        }
    }

    static class AcquireWithoutTtlTck extends ToyTck {
        @Override
        Set<Flaw> flaws() {
            return EnumSet.of(Flaw.ACQUIRE_WITHOUT_TTL);
        }
    }

    static class CheckThenSetTck extends ToyTck {
        @Override
        Set<Flaw> flaws() {
            return EnumSet.of(Flaw.CHECK_THEN_SET);
        }
    }

    static class TokenRestartsTck extends ToyTck {
        @Override
        Set<Flaw> flaws() {
            return EnumSet.of(Flaw.TOKEN_RESTARTS_PER_HOLDING);
        }
    }

    static class RenewAlwaysTrueTck extends ToyTck {
        @Override
        Set<Flaw> flaws() {
            return EnumSet.of(Flaw.RENEW_ALWAYS_TRUE);
        }
    }

    static class RenewWithoutOwnerCheckTck extends ToyTck {
        @Override
        Set<Flaw> flaws() {
            return EnumSet.of(Flaw.RENEW_WITHOUT_OWNER_CHECK);
        }
    }

    static class CancelLeavesQueueEntryTck extends ToyTck {
        @Override
        Set<Flaw> flaws() {
            return EnumSet.of(Flaw.CANCEL_LEAVES_QUEUE_ENTRY);
        }

        @Override
        boolean fair() {
            return true;
        }
    }

    static class EarlyExpiryTck extends ToyTck {
        @Override
        Set<Flaw> flaws() {
            return EnumSet.of(Flaw.EARLY_EXPIRY);
        }
    }

    static class SilentNotificationTck extends ToyTck {
        @Override
        Set<Flaw> flaws() {
            return EnumSet.of(Flaw.SILENT_NOTIFICATION);
        }
    }
}
