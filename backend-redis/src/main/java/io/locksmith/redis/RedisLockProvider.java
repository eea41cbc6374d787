package io.locksmith.redis;

import io.locksmith.LockInfo;
import io.locksmith.LockStoreException;
import io.locksmith.spi.AcquireRequest;
import io.locksmith.Capability;
import io.locksmith.spi.Grant;
import io.locksmith.spi.LockProvider;
import io.locksmith.spi.Owner;
import io.locksmith.spi.RenewRequest;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * Locks on one Redis primary: a single node, or the primary a Sentinel group points at. Every operation is
 * one script; the fencing token is the name's counter, bumped by the script that grants. Fair: a waiter keeps a place
 * in the name's queue with each attempt, and a release hands the lock to the first live one in the same script
 * (direct handoff), which takes it from the release's message or confirms it with its next attempt; see
 * {@code handoff.lua} and {@link LockNode#acquire}.
 */
final class RedisLockProvider implements LockProvider {

    private static final Logger LOG = LoggerFactory.getLogger(RedisLockProvider.class);

    private final LockNode node;
    private final String description;
    private final Duration commandTimeout;

    private final boolean accessControlled;

    RedisLockProvider(LockNode node, String description, Duration commandTimeout) {
        this(node, description, commandTimeout, false);
    }

    private RedisLockProvider(LockNode node, String description, Duration commandTimeout, boolean accessControlled) {
        this.node = node;
        this.description = description;
        this.commandTimeout = commandTimeout;
        this.accessControlled = accessControlled;
    }

    /**
     * This provider, declaring {@code ACCESS_CONTROL}: for a client that authenticates on a server that refuses clients
     * without credentials ({@link AnonymousProbe}). Which other users may touch the lock keys is the ACLs' part.
     */
    RedisLockProvider accessControlled() {
        return new RedisLockProvider(node, description, commandTimeout, true);
    }

    /** The URI's {@code timeout}, plus the {@code WAIT} time-out when replicas must acknowledge. */
    @Override
    public Duration commandTimeout() {
        return commandTimeout;
    }

    /**
     * Over Jedis to one node without {@code WAIT}, every call is one script request under one deadline
     * ({@link io.locksmith.spi.CallDeadline}): the URI's {@code timeout}. Empty otherwise.
     */
    @Override
    public Optional<Duration> callTimeLimit() {
        return node.callTimeLimit();
    }

    /** Over Jedis the pool's size less one; over Redisson, which multiplexes its connections, the default. */
    @Override
    public int maxConcurrentCalls() {
        return node.maxConcurrentCalls();
    }

    @Override
    public Optional<Grant> tryAcquire(AcquireRequest request) {
        LockNode.Acquired acquired = node.acquire(request.name(), request.owner(), request.ttl(), request.willWait());
        if (!acquired.granted()) {
            return Optional.empty();
        }
        try {
            node.requireAcknowledged(acquired.replicasAcknowledged(), request.name());
        } catch (LockNode.ReplicasNotAcknowledged e) {
            // A failover now could forget the lock: do not hand out a grant the replicas do not have.
            releaseAfterFailure(request.name(), request.owner().id(), e);
            throw e;
        }
        return Optional.of(new Grant(request.name(), request.owner(), acquired.token(), acquired.validity()));
    }

    private void releaseAfterFailure(String name, String ownerId, LockStoreException failure) {
        try {
            node.release(name, ownerId, false);
        } catch (RuntimeException e) {
            failure.addSuppressed(e);
        }
    }

    @Override
    public boolean renew(Grant grant, Duration ttl) {
        return node.renew(grant.name(), grant.owner().id(), ttl);
    }

    @Override
    public List<Boolean> renewAll(List<RenewRequest> requests) {
        if (requests.isEmpty()) {
            return List.of();
        }
        return node.renewAll(requests);
    }

    @Override
    public boolean release(Grant grant) {
        return node.release(grant.name(), grant.owner().id(), false);
    }

    /** The owner's place in the name's queue goes, and a lock a release handed it is freed: {@code cancel.lua}. */
    @Override
    public void cancel(String name, Owner owner) {
        node.cancel(name, owner.id());
    }

    /** A late copy of the failed acquire must not take the lock after this: see {@code release_abandoned.lua}. */
    @Override
    public void releaseAmbiguous(String name, Owner owner) {
        node.releaseAbandoned(name, owner.id());
    }

    @Override
    public Optional<LockInfo> inspect(String name) {
        LockNode.Holding holding = node.inspect(name);
        return holding == null ? Optional.empty()
                : Optional.of(new LockInfo(name, holding.holder(), holding.token(), holding.remaining(), List.of()));
    }

    @Override
    public List<LockInfo> list(String prefix) {
        List<LockInfo> held = new ArrayList<>();
        for (String name : node.lockNames(prefix)) {
            inspect(name).ifPresent(held::add);
        }
        return held;
    }

    @Override
    public Set<Capability> capabilities() {
        Set<Capability> capabilities = EnumSet.of(Capability.FENCING, Capability.RELEASE_NOTIFICATION,
                Capability.BATCH_RENEW, Capability.FAIR);
        if (accessControlled) {
            capabilities.add(Capability.ACCESS_CONTROL);
        }
        return capabilities;
    }

    @Override
    public Duration effectiveTtl(Duration requested) {
        return Duration.ofMillis(LockNode.millis(requested));
    }

    @Override
    public AutoCloseable subscribe(String name, Runnable onChange) {
        return node.subscribe(name, onChange);
    }

    @Override
    public Optional<io.locksmith.spi.Registry> registry() {
        return Optional.of(new RedisRegistry(List.of(node)));
    }

    @Override
    public String describe() {
        return description;
    }

    @Override
    public void close() {
        try {
            node.close();
        } catch (RuntimeException e) {
            LOG.debug("closing {} failed", description, e);
        }
    }

    @Override
    public String toString() {
        return description;
    }
}
