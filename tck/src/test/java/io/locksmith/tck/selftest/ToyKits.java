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
        private final ToyStore store = new ToyStore(flaws(), fair(), sessionBound(), accessControl());
        private final String scheme = "broken-" + getClass().getSimpleName().toLowerCase(Locale.ROOT).replace("tck", "");

        abstract Set<Flaw> flaws();

        boolean fair() {
            return false;
        }

        boolean sessionBound() {
            return false;
        }

        boolean accessControl() {
            return false;
        }

        ToyStore store() {
            return store;
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
            if (accessControl()) {
                expected.add(Capability.ACCESS_CONTROL);
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

    /** What a raw session of another identity gets through in an access-controlled toy store (rule R2.6). */
    enum Leak {
        /** Any identity may delete a lock: a ZooKeeper node made with {@code OPEN_ACL_UNSAFE}. */
        DELETE,
        /** Any identity may extend a lock's expiry: a key pattern granted too widely, for {@code PEXPIRE}. */
        EXTEND,
        /** Any identity may write a holding of its own. */
        TAKE_OVER,
        /** Any identity may read the holder. */
        READ,
        /** A client without credentials may do anything: Redis's {@code default} user left {@code on nopass}. */
        NO_CREDENTIALS_LET_IN,
        /** The kit's hook aims at the wrong records: its application session misses the lock (a broken hook). */
        HOOK_MISSES_THE_LOCK
    }

    /**
     * A toy store that declares {@code ACCESS_CONTROL}, with raw sessions that check their identity, except for the
     * given {@link Leak}s. A refused command throws, as a store's client does.
     */
    abstract static class AccessControlledToyTck extends ToyTck {
        @Override
        Set<Flaw> flaws() {
            return EnumSet.noneOf(Flaw.class);
        }

        @Override
        boolean accessControl() {
            return true;
        }

        abstract Set<Leak> leaks();

        @Override
        protected io.locksmith.tck.RawStoreSession rawStoreSession(io.locksmith.tck.RawStoreSession.Identity identity) {
            Set<Leak> leaks = leaks();
            boolean application = identity == io.locksmith.tck.RawStoreSession.Identity.APPLICATION;
            boolean anonymous = identity == io.locksmith.tck.RawStoreSession.Identity.NO_CREDENTIALS
                    && leaks.contains(Leak.NO_CREDENTIALS_LET_IN);
            String suffix = application && leaks.contains(Leak.HOOK_MISSES_THE_LOCK) ? "#elsewhere" : "";
            ToyStore store = store();
            return new io.locksmith.tck.RawStoreSession() {
                private void check(Leak leak, String command) {
                    if (!application && !anonymous && !leaks.contains(leak)) {
                        throw new IllegalStateException("NOAUTH " + identity + " may not " + command);
                    }
                }

                @Override
                public void delete(String lockName) {
                    check(Leak.DELETE, "delete");
                    store.expire(lockName + suffix);
                }

                @Override
                public void extend(String lockName, java.time.Duration ttl) {
                    check(Leak.EXTEND, "extend");
                    store.rawExtend(lockName + suffix, ttl);
                }

                @Override
                public void takeOver(String lockName) {
                    check(Leak.TAKE_OVER, "write");
                    store.rawTakeOver(lockName + suffix, new io.locksmith.HolderIdentity("intruder-" + identity,
                            "toy", "raw", 0, null));
                }

                @Override
                public java.util.Optional<String> read(String lockName) {
                    check(Leak.READ, "read");
                    return java.util.Optional.ofNullable(store.rawRead(lockName + suffix));
                }

                @Override
                public void close() {
                }
            };
        }
    }

    static class CorrectAccessControlledToyTck extends AccessControlledToyTck {
        @Override
        Set<Leak> leaks() {
            return EnumSet.noneOf(Leak.class);
        }
    }

    static class ForeignDeleteToyTck extends AccessControlledToyTck {
        @Override
        Set<Leak> leaks() {
            return EnumSet.of(Leak.DELETE);
        }
    }

    static class ForeignExtendToyTck extends AccessControlledToyTck {
        @Override
        Set<Leak> leaks() {
            return EnumSet.of(Leak.EXTEND);
        }
    }

    static class ForeignTakeOverToyTck extends AccessControlledToyTck {
        @Override
        Set<Leak> leaks() {
            return EnumSet.of(Leak.TAKE_OVER);
        }
    }

    static class ForeignReadToyTck extends AccessControlledToyTck {
        @Override
        Set<Leak> leaks() {
            return EnumSet.of(Leak.READ);
        }
    }

    static class AnonymousLetInToyTck extends AccessControlledToyTck {
        @Override
        Set<Leak> leaks() {
            return EnumSet.of(Leak.NO_CREDENTIALS_LET_IN);
        }
    }

    static class HookMissesTheLockToyTck extends AccessControlledToyTck {
        @Override
        Set<Leak> leaks() {
            return EnumSet.of(Leak.HOOK_MISSES_THE_LOCK);
        }
    }
}
