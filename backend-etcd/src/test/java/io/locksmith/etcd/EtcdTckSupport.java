package io.locksmith.etcd;

import io.etcd.jetcd.Client;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.options.GetOption;
import io.locksmith.Capability;
import io.locksmith.tck.TckTiming;

import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/** What the TCK subclasses share: the timing etcd needs and the expiry behind a holder's back. */
final class EtcdTckSupport {

    /**
     * etcd counts whole seconds: the kit's 400 ms short lease becomes 2 s, so the keep-alive of a third of
     * the TTL has room on a loaded machine.
     */
    static final TckTiming TIMING = TckTiming.defaults().scaledBy(5);

    /**
     * What docs/ETCD.md promises of one member and of a cluster (R8.11): fencing by the key's create revision, watches
     * for release notification, a fair queue by create revision that inspect lists, the lease as a session, and batch
     * renewal.
     */
    static final Set<Capability> CAPABILITIES = EnumSet.of(Capability.FENCING, Capability.RELEASE_NOTIFICATION,
            Capability.FAIR, Capability.SESSION_BOUND, Capability.BATCH_RENEW, Capability.INSPECT_WAITERS);

    private EtcdTckSupport() {
    }

    /**
     * Deletes the holder's key (the smallest create revision under the lock's directory) with a separate
     * client, as etcd does when the holder's lease runs out. Revoking the lease instead would also drop the
     * holder client's other locks of the same TTL. A lock nobody holds is left alone.
     */
    static void deleteHolderKey(Client direct, String lockName) {
        try {
            List<KeyValue> holder = direct.getKVClient().get(new EtcdKeys(EtcdSettings.DEFAULT_PREFIX).directory(lockName),
                            GetOption.builder().isPrefix(true).withSortField(GetOption.SortTarget.CREATE)
                                    .withSortOrder(GetOption.SortOrder.ASCEND).withLimit(1).build())
                    .get(10, TimeUnit.SECONDS).getKvs();
            if (holder.isEmpty()) {
                return; // nobody holds it: nothing to expire (the kit also calls the hook to see if it exists)
            }
            direct.getKVClient().delete(holder.get(0).getKey()).get(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while expiring lock '" + lockName + "'", e);
        } catch (Exception e) {
            throw new IllegalStateException("could not expire lock '" + lockName + "' in etcd", e);
        }
    }

    /**
     * The TCK's {@code endStoreSession}: revokes every lease of the provider with a separate client, as an operator
     * or etcd itself ends a lease; etcd deletes the keys on them at once and tells the provider nothing.
     */
    static void revokeLeases(Client direct, io.locksmith.spi.LockProvider storeProvider) {
        List<Long> ids = ((EtcdLockProvider) storeProvider).leaseIds();
        if (ids.isEmpty()) {
            throw new IllegalStateException("the provider keeps no lease alive: nothing to revoke");
        }
        try {
            for (long id : ids) {
                direct.getLeaseClient().revoke(id).get(10, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while revoking leases " + ids, e);
        } catch (Exception e) {
            throw new IllegalStateException("could not revoke leases " + ids + " in etcd", e);
        }
    }
}
