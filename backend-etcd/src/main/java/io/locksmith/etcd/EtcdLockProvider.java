package io.locksmith.etcd;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.KV;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.kv.GetResponse;
import io.etcd.jetcd.kv.TxnResponse;
import io.etcd.jetcd.lease.LeaseGrantResponse;
import io.etcd.jetcd.op.Cmp;
import io.etcd.jetcd.op.CmpTarget;
import io.etcd.jetcd.op.Op;
import io.etcd.jetcd.options.DeleteOption;
import io.etcd.jetcd.options.GetOption;
import io.etcd.jetcd.options.PutOption;
import io.locksmith.HolderIdentity;
import io.locksmith.LockInfo;
import io.locksmith.LockConfigurationException;
import io.locksmith.LockStoreException;
import io.locksmith.spi.AcquireRequest;
import io.locksmith.Capability;
import io.locksmith.spi.CallDeadline;
import io.locksmith.spi.Grant;
import io.locksmith.spi.HolderCodec;
import io.locksmith.spi.LockProvider;
import io.locksmith.spi.Owner;
import io.locksmith.spi.ProviderContext;
import io.locksmith.spi.RenewRequest;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Locks on etcd with the revision-ordered queue recipe, done with KV transactions rather than etcd's lock
 * service (two {@code lock()} calls on one lease both succeed there).
 *
 * <p>Every holder and waiter of a lock puts its own key {@code prefix + name + "/" + slot}, attached to
 * the provider's shared lease for its TTL; a slot ({@link KeySlots}) is this client's, held by one owner at a time
 * and reused by the next, so that a busy name does not fill etcd's index with deleted keys. The key with the
 * smallest create revision holds the lock, and that revision is its fencing token: etcd's revision is global and
 * never reused, so tokens strictly increase. A waiter keeps its key between attempts (its place in the queue) and
 * learns from the name's queue watch when every key ahead of it is gone ({@link QueueWatches}).
 *
 * <p>Under a shared lease that the provider keeps alive, etcd applies no TTL per key: the store is session-bound
 * ({@link Capability#SESSION_BOUND}, so {@link #appliesTtl()} is false), and the shared client releases a lock whose
 * lease ran out at the TTL it asked for. The provider keeps no lease timer of its own; it reports a lost lease
 * ({@link SharedLeases}), whose keys etcd deletes.
 */
final class EtcdLockProvider implements LockProvider {

    private static final Logger LOG = LoggerFactory.getLogger(EtcdLockProvider.class);
    /** etcd's default limit on operations in one transaction is 128. */
    private static final int MAX_TXN_OPS = 100;

    private static final GetOption HEAD = GetOption.builder().isPrefix(true)
            .withSortField(GetOption.SortTarget.CREATE).withSortOrder(GetOption.SortOrder.ASCEND)
            .withLimit(1).build();

    private final Client client;
    private final KV kv;
    private final EtcdSettings settings;
    private final EtcdKeys keys;
    private final String store;
    /** Whether a refused connection means the members are down, or only that the channel has not reconnected yet. */
    private final Reachability members;
    private final ScheduledExecutorService scheduler;
    private final SharedLeases leases;
    private final QueueWatches watches;
    private final KeySlots slots = new KeySlots();
    /**
     * The key each waiting owner wrote in its current wait (key, create revision, lease), until the wait ends: its
     * later attempts only read (a read-only transaction is no raft proposal, so no WAL write and fsync), where a
     * repeated put-if-absent transaction would be proposed and committed even when its compare fails.
     */
    private final Map<String, KeyHandle> waitingKeys = new java.util.concurrent.ConcurrentHashMap<>();
    /**
     * Runs in every acquire attempt between its slot claim and its transaction: for tests that hold an attempt there,
     * as a loaded machine may, while the shared client cleans up after the caller stopped waiting for it.
     */
    private volatile Runnable beforeAcquireTransaction = () -> { };
    private volatile long minimumTtlSeconds = 1;
    private final String clientId;

    EtcdLockProvider(Client client, EtcdSettings settings, ProviderContext context) {
        this.client = client;
        this.kv = client.getKVClient();
        this.settings = settings;
        this.keys = new EtcdKeys(settings.prefix());
        this.store = settings.describe();
        this.clientId = context.clientId();
        String id = context.clientId().substring(0, Math.min(8, context.clientId().length()));
        this.scheduler = Executors.newSingleThreadScheduledExecutor(runnable -> {
            Thread thread = new Thread(runnable, "locksmith-etcd-" + id);
            thread.setDaemon(true);
            return thread;
        });
        this.members = Reachability.of(settings.endpoints(), client);
        this.leases = new SharedLeases(client.getLeaseClient(), scheduler, context.lossListener(), store,
                settings.timeout(), members);
        this.watches = new QueueWatches(client.getWatchClient());
    }

    /**
     * Asks etcd for a one-second lease to learn the smallest TTL it grants (it raises smaller ones to
     * 1.5 election timeouts, rounded up), and so checks that it is reachable, that the login (if any) and the TLS
     * handshake (if any) succeed, and that the user may read and write the keys under the prefix
     * ({@link OpenChecks}).
     *
     * @throws LockStoreException         if etcd does not answer, refuses the login or fails the TLS handshake
     * @throws LockConfigurationException if the user's roles do not let it read or write the lock prefix
     */
    void probe() {
        LeaseGrantResponse probe;
        try {
            probe = Calls.await(members, () -> client.getLeaseClient().grant(1), settings.timeout(), store, null,
                    "grant a probe lease (is etcd running and reachable?)");
        } catch (LockStoreException e) {
            throw OpenChecks.explain(settings, e);
        }
        minimumTtlSeconds = Math.max(1, probe.getTTL());
        try {
            OpenChecks.checkAccess(kv, members, settings, clientId, probe.getID());
        } finally {
            client.getLeaseClient().revoke(probe.getID());
        }
    }

    long minimumTtlSeconds() {
        return minimumTtlSeconds;
    }

    /** The client's queue watches: for tests that make one report a deletion late. */
    QueueWatches queueWatches() {
        return watches;
    }

    /** See {@link #beforeAcquireTransaction}. */
    void beforeAcquireTransaction(Runnable hook) {
        beforeAcquireTransaction = hook;
    }

    /** How many holders and waiters of this client have a key slot now: for tests that check none is left. */
    int claimedKeySlots() {
        return slots.claimed();
    }

    /** The ids of the etcd leases this provider keeps alive now: for tests that revoke them, as etcd may. */
    List<Long> leaseIds() {
        return leases.leaseIds();
    }

    // ---------------------------------------------------------------- acquire

    @Override
    public Optional<Grant> tryAcquire(AcquireRequest request) {
        String ownerId = request.owner().id();
        slots.attemptStarted(ownerId);
        try {
            return CallDeadline.within(settings.timeout(), () -> tryAcquireOnce(request));
        } finally {
            slots.attemptEnded(ownerId);
        }
    }

    private Optional<Grant> tryAcquireOnce(AcquireRequest request) {
        SharedLeases.SharedLease lease = leases.leaseFor(seconds(request.ttl()), request.name());
        try {
            return tryAcquire(request, lease);
        } catch (LockStoreException e) {
            if (!SharedLeases.isLeaseNotFound(e)) {
                throw e;
            }
            // The lease was revoked or expired since its last keep-alive: nothing was written; use a fresh one.
            leases.lost(lease, "etcd no longer knows lease " + Long.toHexString(lease.id) + " (expired or revoked)", e);
            return tryAcquire(request, leases.leaseFor(seconds(request.ttl()), request.name()));
        }
    }

    private Optional<Grant> tryAcquire(AcquireRequest request, SharedLeases.SharedLease lease) {
        String name = request.name();
        Owner owner = request.owner();
        ByteSequence key = keys.key(name, slots.claim(name, owner.id()));
        ByteSequence directory = keys.directory(name);
        long sentAt = System.nanoTime();
        QueueWatches.Place place = request.willWait() ? watches.place(name, owner.id()) : null;
        if (place != null && !lease.isLost() && lease.guaranteedUntil() - sentAt >= request.ttl().toNanos() * 9 / 10
                && watches.knownFirst(name, owner.id(), place.ownRevision, lease.id)) {
            // The queue watch saw every key ahead of ours deleted: ours is the oldest, the lock is ours, with no
            // further request (the key, its create revision and its lease are what our last transaction found).
            waitingKeys.remove(owner.id());
            watches.forget(owner.id());
            return Optional.of(grant(request, lease, key, place.ownRevision, sentAt));
        }
        // The shared lease was last kept alive up to a third of its TTL ago: refresh it alongside the
        // transaction, so that a grant is good for its whole TTL from now, at no extra round trip.
        CompletableFuture<Void> refresh = lease.guaranteedUntil() - sentAt < request.ttl().toNanos() * 9 / 10
                ? leases.refresh(lease) : null;
        // A waiter's later attempt, with the key it wrote in this wait: etcd proposes every transaction that holds a
        // write to raft (a WAL write and fsync per commit), even one whose compare fails and that only reads, so such
        // an attempt reads its key and the queue's head in a read-only transaction instead. What it learns is what the
        // put-if-absent's failed branch would have read.
        beforeAcquireTransaction.run();
        KeyHandle written = request.willWait() ? waitingKeys.get(owner.id()) : null;
        boolean rereading = written != null && written.key().equals(key) && written.leaseId() == lease.id;
        TxnResponse answer = rereading
                ? Calls.await(members, () -> kv.txn()
                        .Then(Op.get(key, GetOption.DEFAULT), Op.get(directory, HEAD))
                        .commit(), settings.timeout(), store, name, "acquire")
                : Calls.await(members, () -> kv.txn()
                        .If(new Cmp(key, Cmp.Op.EQUAL, CmpTarget.createRevision(0)))
                        .Then(Op.put(key, value(owner.holder()), PutOption.builder().withLeaseId(lease.id).build()),
                                Op.get(key, GetOption.DEFAULT),
                                Op.get(directory, HEAD))
                        .Else(Op.get(key, GetOption.DEFAULT),
                                Op.get(directory, HEAD))
                        .commit(), settings.timeout(), store, name, "acquire");
        List<GetResponse> reads = answer.getGetResponses();
        KeyValue own = first(reads.get(0));
        KeyValue head = first(reads.get(1));
        if (own == null || own.getLease() != lease.id
                || (rereading && own.getCreateRevision() != written.createRevision())) {
            // Our waiting key went with a lease we have lost: start again at the back of the queue.
            waitingKeys.remove(owner.id());
            deleteKey(key, name);
            watches.forget(owner.id());
            if (request.willWait()) {
                watches.wake(name);
            } else {
                slots.free(name, owner.id());
            }
            return Optional.empty();
        }
        long revision = own.getCreateRevision();
        if (!rereading && !answer.isSucceeded() && !own.getValue().equals(value(owner.holder()))) {
            adopt(key, revision, owner, lease, name);
        }
        if (head != null && head.getCreateRevision() == revision) {
            waitingKeys.remove(owner.id());
            watches.forget(owner.id());
            awaitQuietly(refresh);
            return Optional.of(grant(request, lease, key, revision, sentAt));
        }
        if (!request.willWait()) {
            watches.forget(owner.id());
            deleteKey(key, name);
            slots.free(name, owner.id());
            return Optional.empty();
        }
        waitingKeys.put(owner.id(), new KeyHandle(key, revision, lease.id));
        if (watches.isSubscribed(name)) {
            boolean first = watches.take(name, owner.id(), key, revision, lease.id, () -> keysAhead(name, revision),
                    CallDeadline.remainingNanos(settings.timeout().toNanos()));
            if (first) {
                watches.wake(name); // everyone ahead left since the transaction: the next attempt takes it
            }
        }
        return Optional.empty();
    }

    /**
     * The owner's slot had a key already that this owner did not write: an attempt of an earlier owner of the slot
     * that reached etcd after that owner's clean-up (its caller's bound had ended). Only this client writes under
     * its slots and the earlier owner is gone, so the key is this owner's now, place and create revision included (a
     * later key queues behind it, so tokens still increase); its value is made this owner's identity, for
     * {@code inspect}.
     */
    private void adopt(ByteSequence key, long revision, Owner owner, SharedLeases.SharedLease lease, String name) {
        LOG.debug("lock '{}': key {} was left by an earlier attempt of this client; its next owner takes it over", name,
                key);
        Calls.await(members, () -> kv.txn()
                .If(new Cmp(key, Cmp.Op.EQUAL, CmpTarget.createRevision(revision)))
                .Then(Op.put(key, value(owner.holder()), PutOption.builder().withLeaseId(lease.id).build()))
                .commit(), settings.timeout(), store, name, "take over a key left by an earlier attempt");
    }

    private Grant grant(AcquireRequest request, SharedLeases.SharedLease lease, ByteSequence key, long revision,
                        long sentAt) {
        Grant grant = new Grant(request.name(), request.owner(), revision, validity(lease, sentAt, request.ttl()),
                new KeyHandle(key, revision, lease.id));
        // No timer for the key's own TTL, which etcd does not apply under a shared lease it is told to keep: the shared
        // client releases a lock whose lease ran out, at the TTL asked for (appliesTtl() is false: SESSION_BOUND).
        leases.track(lease, grant);
        return grant;
    }

    private void awaitQuietly(CompletableFuture<Void> refresh) {
        if (refresh == null) {
            return;
        }
        try {
            refresh.get(CallDeadline.remainingNanos(settings.timeout().toNanos()), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException | TimeoutException e) {
            // The grant is then good for what the lease had left; the background keep-alive deals with the failure.
        }
    }

    /** How long from {@code sentAt} the key is certainly kept: the lease's guarantee, at most the TTL. */
    private static Duration validity(SharedLeases.SharedLease lease, long sentAt, Duration ttl) {
        long guaranteed = lease.guaranteedUntil() - sentAt;
        return guaranteed >= ttl.toNanos() ? ttl : Duration.ofNanos(Math.max(0, guaranteed));
    }

    /**
     * The keys of {@code name} created before {@code revision} (the waiters and the holder ahead of it), each with its
     * create revision: a slot's key is written again by the slot's next owner, so a key name alone does not say
     * which of its lives a deletion ended.
     */
    private Map<ByteSequence, Long> keysAhead(String name, long revision) {
        GetResponse ahead = Calls.await(members, () -> kv.get(keys.directory(name), GetOption.builder().isPrefix(true)
                        .withMaxCreateRevision(revision - 1).withKeysOnly(true).build()),
                settings.timeout(), store, name, "read the keys ahead of a waiter");
        Map<ByteSequence, Long> found = new HashMap<>();
        ahead.getKvs().forEach(entry -> found.put(entry.getKey(), entry.getCreateRevision()));
        return found;
    }

    @Override
    public void cancel(String name, Owner owner) {
        waitingKeys.remove(owner.id());
        watches.forget(owner.id());
        CallDeadline.runWithin(settings.timeout(), () -> deleteOwnersKey(name, owner));
    }

    @Override
    public AutoCloseable subscribe(String name, Runnable onChange) {
        return watches.subscribe(name, keys.directory(name), onChange);
    }

    // ---------------------------------------------------------------- renew and release

    @Override
    public boolean renew(Grant grant, Duration ttl) {
        return renewAll(List.of(new RenewRequest(grant, ttl))).get(0);
    }

    /**
     * Keeps every lease concerned alive once, then reads all keys in one transaction: a key still there
     * with its create revision and lease is renewed. The keep-alive makes the reported validity true: etcd
     * keeps the lease at least a TTL from the moment it was sent.
     */
    @Override
    public List<Boolean> renewAll(List<RenewRequest> requests) {
        // Retrying past the shortest TTL would only hide a loss: the client retries a failed renewal itself.
        Duration within = settings.timeout();
        for (RenewRequest request : requests) {
            within = request.ttl().compareTo(within) < 0 ? request.ttl() : within;
        }
        Duration bound = within;
        Map<Long, Boolean> leaseAlive = new LinkedHashMap<>();
        for (RenewRequest request : requests) {
            KeyHandle handle = handle(request.grant());
            leaseAlive.computeIfAbsent(handle.leaseId(), id -> {
                SharedLeases.SharedLease lease = leases.byId(id);
                return lease != null && leases.keepAliveOnce(lease, request.grant().name(), bound);
            });
        }
        List<Boolean> results = new ArrayList<>(requests.size());
        for (int from = 0; from < requests.size(); from += MAX_TXN_OPS) {
            List<RenewRequest> chunk = requests.subList(from, Math.min(requests.size(), from + MAX_TXN_OPS));
            Op[] reads = chunk.stream().map(r -> Op.get(handle(r.grant()).key(), GetOption.DEFAULT)).toArray(Op[]::new);
            TxnResponse answer = Calls.await(members, () -> kv.txn().Then(reads).commit(), bound, store,
                    chunk.size() == 1 ? chunk.get(0).grant().name() : null, "renew " + chunk.size() + " lock(s)");
            List<GetResponse> found = answer.getGetResponses();
            for (int i = 0; i < chunk.size(); i++) {
                Grant grant = chunk.get(i).grant();
                KeyHandle handle = handle(grant);
                KeyValue key = first(found.get(i));
                boolean held = Boolean.TRUE.equals(leaseAlive.get(handle.leaseId())) && key != null
                        && key.getCreateRevision() == handle.createRevision() && key.getLease() == handle.leaseId();
                if (!held) {
                    leases.untrack(grant);
                }
                results.add(held);
            }
        }
        return results;
    }

    @Override
    public boolean release(Grant grant) {
        if (!(grant.handle() instanceof KeyHandle handle)) {
            releaseAmbiguous(grant.name(), grant.owner());
            return false;
        }
        leases.untrack(grant);
        boolean released = CallDeadline.within(settings.timeout(), () -> deleteIfSame(handle, grant.name()));
        // Deleted now, or no longer the grant's key: either way the slot is free (a key found there is the next
        // owner's to take over, see adopt).
        slots.free(grant.name(), grant.owner().id());
        return released;
    }

    @Override
    public void releaseAmbiguous(String name, Owner owner) {
        waitingKeys.remove(owner.id());
        watches.forget(owner.id());
        CallDeadline.runWithin(settings.timeout(), () -> deleteOwnersKey(name, owner));
    }

    /**
     * Deletes the key of {@code owner}'s slot by name and gives the slot back (unless an attempt of the owner is still
     * running, see {@link KeySlots#freeAfterCleanUp}). The slot is the owner's until then, so
     * the key is the owner's or a left-over of this client's, never another holding's. An owner without a slot
     * wrote no key of that name: nothing to delete.
     */
    private void deleteOwnersKey(String name, Owner owner) {
        String slot = slots.current(name, owner.id());
        if (slot == null) {
            return;
        }
        deleteKey(keys.key(name, slot), name);
        // An attempt of this owner still running (its caller stopped waiting for it) may put the key again after this
        // deletion: the owner keeps the slot until the shared client's clean-up after that attempt, which deletes it.
        slots.freeAfterCleanUp(name, owner.id());
    }

    /**
     * Deletes the holder's key if it is still the one granted.
     *
     * <p>An attempt whose answer is lost (a dropped connection, "request timed out, possibly due to previous leader
     * failure" around a leader change) may still have deleted the key, so a later attempt can find it gone
     * although it was this release that removed it. Gone is then a release, not a loss, when nothing else can
     * have removed the key: its lease was still kept alive when that attempt was sent (so etcd did not expire it).
     * This provider deletes a held key only when asked to release it, and the shared client asks again only for a
     * lock it already counted lost, whose answer it does not read. Only someone deleting the key behind the holder's
     * back in that same instant would be misreported.
     */
    private boolean deleteIfSame(KeyHandle handle, String name) {
        AtomicInteger attempts = new AtomicInteger();
        TxnResponse answer = Calls.await(members, () -> {
            attempts.incrementAndGet();
            return kv.txn()
                    .If(new Cmp(handle.key(), Cmp.Op.EQUAL, CmpTarget.createRevision(handle.createRevision())))
                    .Then(Op.delete(handle.key(), DeleteOption.DEFAULT))
                    .commit();
        }, settings.timeout(), store, name, "release");
        if (answer.isSucceeded()) {
            return true;
        }
        SharedLeases.SharedLease lease = leases.byId(handle.leaseId());
        boolean leaseKept = lease != null && lease.guaranteedUntil() - System.nanoTime() > 0;
        if (attempts.get() > 1 && leaseKept) {
            LOG.debug("lock '{}' (token {}): an earlier release attempt whose answer was lost deleted the key", name,
                    handle.createRevision());
            return true;
        }
        return false;
    }

    private void deleteKey(ByteSequence key, String name) {
        Calls.await(members, () -> kv.delete(key), settings.timeout(), store, name, "delete a queue key");
    }

    // ---------------------------------------------------------------- inspect and the rest

    @Override
    public Optional<LockInfo> inspect(String name) {
        return CallDeadline.within(settings.timeout(), () -> inspectOnce(name));
    }

    private Optional<LockInfo> inspectOnce(String name) {
        GetResponse all = Calls.await(members, () -> kv.get(keys.directory(name), GetOption.builder().isPrefix(true)
                        .withSortField(GetOption.SortTarget.CREATE).withSortOrder(GetOption.SortOrder.ASCEND).build()),
                settings.timeout(), store, name, "inspect");
        List<KeyValue> queue = all.getKvs();
        if (queue.isEmpty()) {
            return Optional.empty();
        }
        KeyValue holder = queue.get(0);
        List<HolderIdentity> waiters = new ArrayList<>(queue.size() - 1);
        for (KeyValue waiter : queue.subList(1, queue.size())) {
            waiters.add(identity(waiter));
        }
        return Optional.of(new LockInfo(name, identity(holder), holder.getCreateRevision(), timeToLive(holder, name),
                waiters));
    }

    /**
     * What is left of the holder key's lease, as etcd counts it (whole seconds): the most the key can stay if its
     * holder goes silent now. Null for a key without a lease, or one whose lease is already gone.
     */
    private Duration timeToLive(KeyValue key, String name) {
        if (key.getLease() == 0) {
            return null;
        }
        long seconds = Calls.await(members, () -> client.getLeaseClient().timeToLive(key.getLease(),
                io.etcd.jetcd.options.LeaseOption.DEFAULT), settings.timeout(), store, name, "read the lease of")
                .getTTL();
        return seconds < 0 ? null : Duration.ofSeconds(seconds);
    }

    /**
     * One range read of every key under the prefix, grouped by lock name; as in {@link #inspect}, the key with
     * the smallest create revision holds and the others wait in revision order.
     */
    @Override
    public List<LockInfo> list(String prefix) {
        return CallDeadline.within(settings.timeout(), () -> listOnce(prefix));
    }

    private List<LockInfo> listOnce(String prefix) {
        GetResponse all = Calls.await(members, () -> kv.get(keys.namesStartingWith(prefix), GetOption.builder().isPrefix(true)
                        .withSortField(GetOption.SortTarget.CREATE).withSortOrder(GetOption.SortOrder.ASCEND).build()),
                settings.timeout(), store, null, "list");
        Map<String, List<KeyValue>> queues = new TreeMap<>();
        for (KeyValue entry : all.getKvs()) {
            String name = keys.nameOf(entry.getKey());
            if (name != null && name.startsWith(prefix)) {
                queues.computeIfAbsent(name, n -> new ArrayList<>()).add(entry);
            }
        }
        List<LockInfo> held = new ArrayList<>(queues.size());
        // A client keeps one lease per TTL for all its keys: each lease is asked once per listing, not once per lock.
        Map<Long, Duration> leaseTtls = new java.util.HashMap<>();
        queues.forEach((name, queue) -> {
            KeyValue holder = queue.get(0);
            Duration remaining = leaseTtls.containsKey(holder.getLease()) ? leaseTtls.get(holder.getLease())
                    : timeToLive(holder, name);
            leaseTtls.put(holder.getLease(), remaining);
            held.add(new LockInfo(name, identity(holder), holder.getCreateRevision(), remaining,
                    queue.subList(1, queue.size()).stream().map(EtcdLockProvider::identity).toList()));
        });
        return held;
    }

    @Override
    public Set<Capability> capabilities() {
        Set<Capability> capabilities = EnumSet.of(Capability.FENCING, Capability.RELEASE_NOTIFICATION, Capability.FAIR,
                Capability.SESSION_BOUND, Capability.BATCH_RENEW, Capability.INSPECT_WAITERS);
        // With a user the client logged in, which etcd allows only with authentication on: then a request without a
        // token is refused, and a user whose roles do not cover the prefix cannot read, write or delete its keys.
        if (settings.user().isPresent()) {
            capabilities.add(Capability.ACCESS_CONTROL);
        }
        return capabilities;
    }

    /**
     * etcd leases have whole-second TTLs and a server minimum: a TTL is rounded up to whole seconds, and
     * refused below one second or below the minimum this server grants.
     */
    /** The least TTL this etcd server grants (1.5 election timeouts, whole seconds), learnt when the client opened. */
    @Override
    public Duration minimumTtl() {
        return Duration.ofSeconds(minimumTtlSeconds);
    }

    /** The URI's {@code timeout} (default 5 s). */
    @Override
    public Duration commandTimeout() {
        return settings.timeout();
    }

    /**
     * The URI's {@code timeout}: every call that the shared client makes on a caller's behalf (acquire, cancel,
     * release, inspect, list) runs under one deadline of that length ({@link CallDeadline#within}), whatever number of
     * requests it sends, and jetcd answers asynchronously, so no wait inside a call outlasts it. The client then
     * calls on the caller's thread: handing each call to a pool thread cost two thread wake-ups per call.
     */
    @Override
    public Optional<Duration> callTimeLimit() {
        return Optional.of(settings.timeout());
    }

    @Override
    public Duration effectiveTtl(Duration requested) {
        long minimum = minimumTtlSeconds;
        if (requested.compareTo(Duration.ofSeconds(1)) < 0) {
            throw new IllegalArgumentException("etcd leases last whole seconds; a lease time of " + requested
                    + " is under the 1s minimum (" + store + " grants at least " + minimum + "s)");
        }
        long seconds = seconds(requested);
        if (seconds < minimum) {
            throw new IllegalArgumentException("a lease time of " + requested + " is under the " + minimum
                    + "s minimum that " + store + " grants (1.5 election timeouts); ask for at least " + minimum + "s");
        }
        return Duration.ofSeconds(seconds);
    }

    @Override
    public Optional<io.locksmith.spi.Registry> registry() {
        return Optional.of(new EtcdRegistry(client, settings.prefix(), settings.timeout(), store, members));
    }

    @Override
    public String describe() {
        return store;
    }

    @Override
    public void close() {
        watches.close();
        try {
            leases.close();
        } finally {
            scheduler.shutdownNow();
            client.close();
        }
    }

    /**
     * Drops the connection without releasing or revoking anything: what a crashed process leaves behind.
     * For tests of the store's own expiry.
     */
    void closeWithoutRevoking() {
        scheduler.shutdownNow();
        watches.close();
        client.close();
    }

    // ---------------------------------------------------------------- helpers

    private static long seconds(Duration ttl) {
        long seconds = ttl.getSeconds();
        return ttl.getNano() > 0 ? seconds + 1 : seconds;
    }

    private static KeyHandle handle(Grant grant) {
        if (grant.handle() instanceof KeyHandle handle) {
            return handle;
        }
        throw new IllegalArgumentException("lock '" + grant.name() + "' was not granted by an etcd provider");
    }

    private static KeyValue first(GetResponse response) {
        return response.getKvs().isEmpty() ? null : response.getKvs().get(0);
    }

    private static ByteSequence value(HolderIdentity holder) {
        return ByteSequence.from(HolderCodec.encode(holder), StandardCharsets.UTF_8);
    }

    private static HolderIdentity identity(KeyValue kv) {
        return HolderCodec.decode(kv.getValue().toString(StandardCharsets.UTF_8));
    }

    @Override
    public String toString() {
        return "EtcdLockProvider[" + store + ", " + minimumTtlSeconds + "s minimum TTL]";
    }
}
