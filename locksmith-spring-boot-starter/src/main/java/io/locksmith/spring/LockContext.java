package io.locksmith.spring;

import io.locksmith.Lease;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Optional;

/**
 * The lease of the {@link Locked @Locked} method running on the current thread:
 * <pre>{@code
 * @Locked(name = "'stock:' + #sku")
 * public void deduct(String sku, int quantity) {
 *     jdbc.update("UPDATE stock SET qty = qty - ?, fence = ? WHERE sku = ? AND fence < ?",
 *             quantity, LockContext.currentFencingToken(), sku, LockContext.currentFencingToken());
 * }
 * }</pre>
 * Nested {@code @Locked} methods stack: the innermost one's lease is current, and the outer one's again when it
 * returns. The context is per thread: work handed to another thread does not see it (pass the lease or the
 * token along explicitly). In a {@code @Locked} method returning {@code CompletableFuture}, {@code Mono} or
 * {@code Flux} it is set while the method itself runs, not in the work it starts: read the token there, or use
 * {@code ReactiveLocks.currentLease()} (locksmith-reactor) inside a {@code Mono} or {@code Flux}, also from a Kotlin
 * suspend function ({@code ReactiveLocks.currentLease().awaitSingle()}).
 */
public final class LockContext {

    private static final ThreadLocal<Deque<Lease>> LEASES = new ThreadLocal<>();

    private LockContext() {
    }

    /** The current lease, or empty outside a {@code @Locked} method. */
    public static Optional<Lease> current() {
        Deque<Lease> leases = LEASES.get();
        return leases == null ? Optional.empty() : Optional.ofNullable(leases.peek());
    }

    /**
     * The current lease.
     *
     * @throws IllegalStateException if the thread is not running a {@code @Locked} method
     */
    public static Lease currentLease() {
        return current().orElseThrow(() -> new IllegalStateException(
                "no lock held here: LockContext is only set inside a @Locked method, on the thread that called it"));
    }

    /**
     * The fencing token of the current lease.
     *
     * @throws IllegalStateException if the thread is not running a {@code @Locked} method
     */
    public static long currentFencingToken() {
        return currentLease().fencingToken();
    }

    static void push(Lease lease) {
        Deque<Lease> leases = LEASES.get();
        if (leases == null) {
            leases = new ArrayDeque<>(2);
            LEASES.set(leases);
        }
        leases.push(lease);
    }

    static void pop() {
        Deque<Lease> leases = LEASES.get();
        if (leases == null) {
            return;
        }
        leases.poll();
        if (leases.isEmpty()) {
            // Pooled threads must not keep the deque (or a stale lease) after the outermost call.
            LEASES.remove();
        }
    }
}
