package io.locksmith.tck;

import io.locksmith.Capability;
import io.locksmith.LockClient;
import io.locksmith.spi.LockProvider;
import io.locksmith.spi.LockProviderFactory;
import io.locksmith.tck.kits.KitContext;
import io.locksmith.tck.kits.RuleKit;
import io.locksmith.tck.kits.StoreHooks;

import java.util.Set;

/**
 * What every kit class of the module asks of a backend author: the hooks on the store under test, handed to the
 * rule kits of {@code io.locksmith.tck.kits} through {@link KitContext}. {@link LockTck} (the lock's rules) and
 * {@link PrimitivesTck} (the semaphore's, the read-write lock's and leader election's) extend it; an author
 * overrides the same hooks in each.
 */
public abstract class TckBase implements RuleKit {

    private final KitContext kitContext = new KitContext(new Hooks());

    /** A NEW client on the store under test (a new client id each call). The kit closes every client it gets. */
    protected abstract LockClient newClient();

    /**
     * Makes the store drop the lock right now, as if its TTL ran out, behind its holder's back (Redis:
     * {@code PEXPIRE key 1}; mem: {@code MemStore.expire}). The default throws
     * {@link UnsupportedOperationException}, and the rules that need it are skipped with a reason naming
     * this hook.
     */
    protected void expireBehindClientsBack(String lockName) {
        throw new UnsupportedOperationException("expireBehindClientsBack(String) is not implemented by "
                + getClass().getName());
    }

    /** Timing for this store; default {@link TckTiming#defaults()}. */
    protected TckTiming timing() {
        return TckTiming.defaults();
    }

    /**
     * The URI of the store under test, for the rules that open their own clients on it: through the kit's
     * {@link FaultInjector} at the SPI, or with a trace id source (docs/TCK.md lists them). The default throws
     * {@link UnsupportedOperationException}, and those rules are skipped, naming this hook.
     */
    protected String storeUri() {
        throw new UnsupportedOperationException("storeUri() is not implemented by " + getClass().getName());
    }

    /**
     * The capabilities the store under test is expected to declare: what its documentation promises (rule R8.11).
     * A provider that silently stops declaring one would otherwise pass the kit with that capability's rules
     * skipped. The default throws {@link UnsupportedOperationException}, and R8.11 is skipped, naming this hook.
     */
    protected Set<Capability> expectedCapabilities() {
        throw new UnsupportedOperationException("expectedCapabilities() is not implemented by " + getClass().getName());
    }

    /**
     * Ends the store session of {@code storeProvider} (the store's own provider of a client the kit opened on
     * {@link #storeUri()}), as the store itself ends a session it no longer trusts: ZooKeeper expires it (close a
     * second handle opened with the same session id and password), etcd revokes the client's lease. Only for
     * stores that declare {@code SESSION_BOUND}; the default throws {@link UnsupportedOperationException}, and
     * the rules that need it are skipped, naming this hook.
     */
    protected void endStoreSession(LockProvider storeProvider) {
        throw new UnsupportedOperationException("endStoreSession(LockProvider) is not implemented by "
                + getClass().getName());
    }

    /**
     * A session on the store under test that speaks the store's own commands as {@code identity}: the application's
     * own credentials (the control), another user's, the application's user with a wrong password, or none (rule
     * R2.6, for stores that declare {@code ACCESS_CONTROL}). Opening may throw when the store refuses the identity
     * at the door (a wrong password on PostgreSQL, etcd or Redis): the kit counts that as refused. The default throws
     * {@link UnsupportedOperationException}, and R2.6 is skipped, naming this hook.
     */
    protected RawStoreSession rawStoreSession(RawStoreSession.Identity identity) throws Exception {
        throw new UnsupportedOperationException("rawStoreSession(Identity) is not implemented by "
                + getClass().getName());
    }

    /**
     * The factory that serves {@link #storeUri()}; the default is the one {@link java.util.ServiceLoader} finds
     * for the URI's scheme. Override it for a factory that is not registered as a service.
     */
    protected LockProviderFactory storeFactory(String scheme) {
        return StoreHooks.registeredFactory(scheme);
    }

    /** The hooks above and the resources of the running rule, as the kits see them; one per test instance. */
    @Override
    public final KitContext kitContext() {
        return kitContext;
    }

    /** This kit's hooks, for the kits of {@code io.locksmith.tck.kits}. */
    private final class Hooks implements StoreHooks {
        @Override
        public String kitName() {
            return TckBase.this.getClass().getSimpleName();
        }

        @Override
        public LockClient newClient() {
            return TckBase.this.newClient();
        }

        @Override
        public String storeUri() {
            return TckBase.this.storeUri();
        }

        @Override
        public void expireBehindClientsBack(String lockName) {
            TckBase.this.expireBehindClientsBack(lockName);
        }

        @Override
        public TckTiming timing() {
            return TckBase.this.timing();
        }

        @Override
        public Set<Capability> expectedCapabilities() {
            return TckBase.this.expectedCapabilities();
        }

        @Override
        public void endStoreSession(LockProvider storeProvider) {
            TckBase.this.endStoreSession(storeProvider);
        }

        @Override
        public LockProviderFactory storeFactory(String scheme) {
            return TckBase.this.storeFactory(scheme);
        }

        @Override
        public RawStoreSession rawStoreSession(RawStoreSession.Identity identity) throws Exception {
            return TckBase.this.rawStoreSession(identity);
        }
    }
}
