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
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

/**
 * RedLock: one lock over N independent Redis primaries, held when a majority ({@code N/2+1}) granted it
 * within its validity. Each node runs the same scripts as a single node. An acquire asks the nodes in one
 * fixed order (so that racing clients cannot split the votes); renewals, releases and inspection ask them
 * all at once.
 *
 * <p><b>Validity.</b> The grant's validity is the TTL minus the time the acquire took (monotonic clock)
 * minus a clock drift allowance of 1% of the TTL plus 2 ms. If nothing is left, the acquire failed.
 *
 * <p><b>Fencing.</b> Per-node counters are not comparable across different majorities, so the token is made
 * in two steps: it is the highest of the counters the granting majority drew, and before the grant is
 * returned every granting node sets its counter to at least that token while it still holds the lock
 * ({@code raise_fence.lua}); a majority must confirm. Any later holder's majority shares a node with this
 * one, and on that node it drew its counter after this holding raised it, so its token is higher. This
 * holds as long as no node loses its data (a restart without persistence resets its counter); see
 * {@code docs/REDIS.md}.
 *
 * <p>A failed acquire releases on every node (owner-checked). Renewal and release need a majority too.
 */
final class RedLockProvider implements LockProvider {

    private static final Logger LOG = LoggerFactory.getLogger(RedLockProvider.class);

    private final List<LockNode> nodes;
    private final int quorum;
    private final String description;
    private final ExecutorService executor;

    private final Duration commandTimeout;

    RedLockProvider(List<LockNode> nodes, String description, Duration commandTimeout) {
        this.commandTimeout = commandTimeout;
        // One order for every client that names the same servers: see attemptInOrder.
        List<LockNode> ordered = new ArrayList<>(nodes);
        ordered.sort(java.util.Comparator.comparing(LockNode::describe));
        this.nodes = List.copyOf(ordered);
        this.quorum = nodes.size() / 2 + 1;
        this.description = description;
        AtomicInteger threads = new AtomicInteger();
        this.executor = Executors.newCachedThreadPool(runnable -> {
            Thread thread = new Thread(runnable, "locksmith-redlock-" + threads.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        });
    }

    int quorum() {
        return quorum;
    }

    /** One node's answer, or its failure. */
    private record Outcome<T>(LockNode node, T value, RuntimeException failure) {
        boolean failed() {
            return failure != null;
        }
    }

    /** Runs {@code call} on every node in parallel and waits for all answers (each bounded by the command timeout). */
    private <T> List<Outcome<T>> onAll(Function<LockNode, T> call) {
        return onEach(nodes, call);
    }

    /** Runs {@code call} on each of {@code some} nodes in parallel and waits for all answers. */
    private <T> List<Outcome<T>> onEach(List<LockNode> some, Function<LockNode, T> call) {
        List<CompletableFuture<Outcome<T>>> futures = new ArrayList<>(some.size());
        for (LockNode node : some) {
            futures.add(CompletableFuture.supplyAsync(() -> on(node, call), executor));
        }
        List<Outcome<T>> outcomes = new ArrayList<>(futures.size());
        boolean interrupted = false;
        for (CompletableFuture<Outcome<T>> future : futures) {
            while (true) {
                try {
                    outcomes.add(future.get());
                    break;
                } catch (InterruptedException e) {
                    // The answers come within the command timeout; leaving now would lose track of grants.
                    interrupted = true;
                } catch (java.util.concurrent.ExecutionException | CompletionException e) {
                    throw new IllegalStateException("RedLock node call failed unexpectedly", e);
                }
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
        return outcomes;
    }

    @Override
    public Optional<Grant> tryAcquire(AcquireRequest request) {
        String name = request.name();
        Owner owner = request.owner();
        long start = System.nanoTime();
        List<Outcome<LockNode.Acquired>> outcomes = attemptInOrder(name, owner, request.ttl());
        List<LockNode> granted = new ArrayList<>();
        long token = 0;
        int failed = 0;
        for (Outcome<LockNode.Acquired> outcome : outcomes) {
            if (outcome.failed()) {
                failed++;
            } else if (outcome.value().granted()) {
                granted.add(outcome.node());
                token = Math.max(token, outcome.value().token());
            }
        }
        if (granted.size() >= quorum) {
            long fencingToken = token;
            List<Outcome<Boolean>> raised = onAll(node -> granted.contains(node)
                    && node.raiseFence(name, owner.id(), fencingToken));
            long raisedCount = raised.stream().filter(o -> !o.failed() && o.value()).count();
            Duration validity = validity(request.ttl(), System.nanoTime() - start);
            if (raisedCount >= quorum && !validity.isNegative() && !validity.isZero()) {
                return Optional.of(new Grant(name, owner, fencingToken, validity));
            }
            failed += (int) raised.stream().filter(Outcome::failed).count();
        }
        // No majority in time: undo what was taken, on every node asked (a failed node may have granted it too).
        LockStoreException failure = failed > nodes.size() - quorum ? storeFailure(name, "acquire", outcomes) : null;
        releaseEverywhere(name, owner.id(), outcomes, failure);
        if (failure != null) {
            throw failure;
        }
        return Optional.empty();
    }

    /**
     * Asks the nodes one after the other, in the same order in every client, and stops as soon as a
     * majority is won or can no longer be won. Asking all nodes at once lets racing clients split the votes
     * so that none wins a free lock; in one order, the first node picks a front runner and only clients
     * that can still win go on, so a race for a free lock has a winner. Once the majority is won, the
     * remaining nodes are asked too (at once): the more nodes hold the lock, the better its renewals
     * survive a node failure.
     */
    private List<Outcome<LockNode.Acquired>> attemptInOrder(String name, Owner owner, Duration ttl) {
        Function<LockNode, LockNode.Acquired> attempt = node -> {
            // No place in a node's queue: a grant needs a majority, which no single node's release can hand over, so
            // RedLock's waiters are woken by the release notification and race as before (not FAIR).
            LockNode.Acquired acquired = node.acquire(name, owner, ttl, false);
            if (acquired.granted()) {
                node.requireAcknowledged(acquired.replicasAcknowledged(), name);
            }
            return acquired;
        };
        List<Outcome<LockNode.Acquired>> outcomes = new ArrayList<>(nodes.size());
        int granted = 0;
        int next = 0;
        while (next < nodes.size() && granted < quorum && granted + (nodes.size() - next) >= quorum) {
            Outcome<LockNode.Acquired> outcome = on(nodes.get(next++), attempt);
            outcomes.add(outcome);
            if (!outcome.failed() && outcome.value().granted()) {
                granted++;
            }
        }
        if (granted >= quorum && next < nodes.size()) {
            outcomes.addAll(onEach(nodes.subList(next, nodes.size()), attempt));
        }
        return outcomes;
    }

    private static <T> Outcome<T> on(LockNode node, Function<LockNode, T> call) {
        try {
            return new Outcome<>(node, call.apply(node), null);
        } catch (RuntimeException e) {
            return new Outcome<>(node, null, e);
        }
    }

    /** TTL minus the time spent minus the clock drift allowance, as the RedLock algorithm defines it. */
    static Duration validity(Duration ttl, long elapsedNanos) {
        long ttlNanos = ttl.toNanos();
        long drift = ttlNanos / 100 + 2_000_000L;
        return Duration.ofNanos(ttlNanos - elapsedNanos - drift);
    }

    /**
     * Releases an attempt on every node. A node that answered is released plainly (the same owner may try
     * again in this wait); a node that failed may still run the attempt later, so it is released as abandoned.
     */
    private void releaseEverywhere(String name, String ownerId, List<Outcome<LockNode.Acquired>> attempts,
                                   LockStoreException failure) {
        List<LockNode> asked = new ArrayList<>();
        List<LockNode> unknown = new ArrayList<>();
        for (Outcome<LockNode.Acquired> attempt : attempts) {
            asked.add(attempt.node());
            if (attempt.failed()) {
                unknown.add(attempt.node());
            }
        }
        for (Outcome<Boolean> outcome : onEach(asked, node -> unknown.contains(node)
                ? node.releaseAbandoned(name, ownerId) : node.release(name, ownerId, true))) {
            if (outcome.failed()) {
                if (failure != null) {
                    failure.addSuppressed(outcome.failure());
                } else {
                    LOG.debug("releasing '{}' on {} after a failed RedLock acquire failed; it runs out at its TTL",
                            name, outcome.node().describe(), outcome.failure());
                }
            }
        }
    }

    private <T> LockStoreException storeFailure(String name, String what, List<Outcome<T>> outcomes) {
        List<String> failedNodes = new ArrayList<>();
        RuntimeException first = null;
        for (Outcome<T> outcome : outcomes) {
            if (outcome.failed()) {
                failedNodes.add(outcome.failure().getMessage());
                first = first == null ? outcome.failure() : first;
            }
        }
        LockStoreException failure = new LockStoreException(name, description + ": " + what + " failed on "
                + failedNodes.size() + " of " + nodes.size() + " nodes (a majority is " + quorum + "): "
                + String.join("; ", failedNodes), first);
        for (Outcome<T> outcome : outcomes) {
            if (outcome.failed() && outcome.failure() != first) {
                failure.addSuppressed(outcome.failure());
            }
        }
        return failure;
    }

    @Override
    public boolean renew(Grant grant, Duration ttl) {
        List<Outcome<Boolean>> outcomes = onAll(node -> node.renew(grant.name(), grant.owner().id(), ttl));
        return majority(grant.name(), "renew", outcomes);
    }

    /** True with a majority of yes; false when a majority can no longer say yes; otherwise unknown: an error. */
    private boolean majority(String name, String what, List<Outcome<Boolean>> outcomes) {
        int yes = 0;
        int failed = 0;
        for (Outcome<Boolean> outcome : outcomes) {
            if (outcome.failed()) {
                failed++;
            } else if (outcome.value()) {
                yes++;
            }
        }
        if (yes >= quorum) {
            return true;
        }
        if (yes + failed >= quorum) {
            throw storeFailure(name, what, outcomes);
        }
        return false;
    }

    @Override
    public List<Boolean> renewAll(List<RenewRequest> requests) {
        if (requests.isEmpty()) {
            return List.of();
        }
        List<Outcome<List<Boolean>>> outcomes = onAll(node -> node.renewAll(requests));
        List<Boolean> results = new ArrayList<>(requests.size());
        for (int i = 0; i < requests.size(); i++) {
            int index = i;
            List<Outcome<Boolean>> perLock = new ArrayList<>(outcomes.size());
            for (Outcome<List<Boolean>> outcome : outcomes) {
                perLock.add(outcome.failed() ? new Outcome<>(outcome.node(), null, outcome.failure())
                        : new Outcome<>(outcome.node(), outcome.value().get(index), null));
            }
            results.add(majority(requests.get(i).grant().name(), "renew", perLock));
        }
        return results;
    }

    @Override
    public boolean release(Grant grant) {
        List<Outcome<Boolean>> outcomes = onAll(node -> node.release(grant.name(), grant.owner().id(), true));
        int removed = 0;
        int failed = 0;
        for (Outcome<Boolean> outcome : outcomes) {
            if (outcome.failed()) {
                failed++;
            } else if (outcome.value()) {
                removed++;
            }
        }
        if (failed > 0 && removed + failed >= quorum && removed < quorum) {
            // Whatever is left on the unreachable nodes runs out at its TTL; it cannot form a majority again.
            throw storeFailure(grant.name(), "release", outcomes);
        }
        return removed >= quorum;
    }

    @Override
    public void releaseAmbiguous(String name, Owner owner) {
        List<Outcome<Boolean>> outcomes = onAll(node -> node.releaseAbandoned(name, owner.id()));
        if (outcomes.stream().anyMatch(Outcome::failed)) {
            throw storeFailure(name, "release after a failed acquire", outcomes);
        }
    }

    @Override
    public Optional<LockInfo> inspect(String name) {
        List<Outcome<LockNode.Holding>> outcomes = onAll(node -> node.inspect(name));
        Map<String, List<LockNode.Holding>> byOwner = new HashMap<>();
        int failed = 0;
        for (Outcome<LockNode.Holding> outcome : outcomes) {
            if (outcome.failed()) {
                failed++;
            } else if (outcome.value() != null) {
                byOwner.computeIfAbsent(outcome.value().ownerId(), k -> new ArrayList<>()).add(outcome.value());
            }
        }
        for (List<LockNode.Holding> holdings : byOwner.values()) {
            if (holdings.size() >= quorum) {
                long token = 0;
                Duration remaining = null;
                for (LockNode.Holding holding : holdings) {
                    token = Math.max(token, holding.token());
                    if (holding.remaining() != null && (remaining == null || holding.remaining().compareTo(remaining) < 0)) {
                        remaining = holding.remaining();
                    }
                }
                return Optional.of(new LockInfo(name, holdings.get(0).holder(), token, remaining, List.of()));
            }
        }
        if (failed > nodes.size() - quorum) {
            throw storeFailure(name, "inspect", outcomes);
        }
        return Optional.empty();
    }

    /**
     * The union of the names on the masters that answer (a held lock is on a majority, so on at least one of
     * any majority), each then inspected as {@link #inspect} does: held only where a majority agrees.
     */
    @Override
    public List<LockInfo> list(String prefix) {
        List<Outcome<SortedSet<String>>> outcomes = onAll(node -> node.lockNames(prefix));
        SortedSet<String> names = new TreeSet<>();
        int failed = 0;
        for (Outcome<SortedSet<String>> outcome : outcomes) {
            if (outcome.failed()) {
                failed++;
            } else {
                names.addAll(outcome.value());
            }
        }
        if (failed > nodes.size() - quorum) {
            throw storeFailure(null, "list", outcomes);
        }
        List<LockInfo> held = new ArrayList<>();
        for (String name : names) {
            inspect(name).ifPresent(held::add);
        }
        return held;
    }

    @Override
    public Set<Capability> capabilities() {
        return EnumSet.of(Capability.FENCING, Capability.RELEASE_NOTIFICATION, Capability.BATCH_RENEW);
    }

    /** The fewest any master's transport serves at once: every call asks each master once. */
    @Override
    public int maxConcurrentCalls() {
        return nodes.stream().mapToInt(LockNode::maxConcurrentCalls).min().orElse(1);
    }

    /** The URI's {@code timeout} once per master: an acquire asks them one after the other. */
    @Override
    public Duration commandTimeout() {
        return commandTimeout;
    }

    @Override
    public Duration effectiveTtl(Duration requested) {
        Duration ttl = Duration.ofMillis(LockNode.millis(requested));
        if (validity(ttl, 0).toMillis() < 1) {
            throw new IllegalArgumentException("RedLock needs a lease time above its clock drift allowance"
                    + " (1% + 2 ms); " + requested.toMillis() + " ms leaves no validity: ask for at least "
                    + minimumTtl());
        }
        return ttl;
    }

    @Override
    public AutoCloseable subscribe(String name, Runnable onChange) {
        List<AutoCloseable> subscriptions = new ArrayList<>(nodes.size());
        for (LockNode node : nodes) {
            try {
                subscriptions.add(node.subscribe(name, onChange));
            } catch (RuntimeException e) {
                // A node that is down now cannot notify; the others can, and the waiter polls anyway.
                LOG.debug("cannot subscribe to releases of '{}' on {}", name, node.describe(), e);
            }
        }
        return () -> {
            for (AutoCloseable subscription : subscriptions) {
                subscription.close();
            }
        };
    }

    @Override
    public Optional<io.locksmith.spi.Registry> registry() {
        return Optional.of(new RedisRegistry(nodes));
    }

    @Override
    public String describe() {
        return description;
    }

    @Override
    public void close() {
        for (LockNode node : nodes) {
            try {
                node.close();
            } catch (RuntimeException e) {
                LOG.debug("closing {} failed", node.describe(), e);
            }
        }
        executor.shutdownNow();
    }

    @Override
    public String toString() {
        return description;
    }
}
