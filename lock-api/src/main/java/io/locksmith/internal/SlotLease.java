package io.locksmith.internal;

import io.locksmith.HolderIdentity;
import io.locksmith.Lease;
import io.locksmith.LeaseLostEvent;
import io.locksmith.LockLostException;
import io.locksmith.LockStoreException;
import io.locksmith.LossAction;
import io.locksmith.PermitLease;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * Permit locks of a {@link SlotSemaphore} held as one: held while every one of them is, lost (and the rest released)
 * as soon as one is lost, released together. Its token is the gate's token at the grant, which every acquirer of
 * the semaphore passed: so tokens strictly increase across every holding of the semaphore, readers and writers of a
 * read-write lock alike.
 */
final class SlotLease implements PermitLease {

    /** Held leases by id, for {@link SlotSemaphore#release(String)}; a lease leaves when closed or lost. */
    private static final Map<String, SlotLease> LIVE = new ConcurrentHashMap<>();
    private static final AtomicLong SEQUENCE = new AtomicLong();

    private final SlotSemaphore semaphore;
    private final List<Lease> permits;
    private final long token;
    private final String id;
    private final boolean exclusive;
    /** The thread of a blocking acquire, interrupted on loss if the options say so; null otherwise or once handed off. */
    private volatile Thread holderThread;
    private final AtomicBoolean closed = new AtomicBoolean();
    private final List<Consumer<LeaseLostEvent>> callbacks = new ArrayList<>();
    private LeaseLostEvent lost;

    SlotLease(SlotSemaphore semaphore, List<Lease> permits, long token, Thread holderThread, boolean exclusive) {
        this.semaphore = semaphore;
        this.exclusive = exclusive;
        this.permits = List.copyOf(permits);
        this.token = token;
        this.holderThread = holderThread;
        this.id = semaphore.client().clientId() + "/" + SEQUENCE.incrementAndGet();
        LIVE.put(id, this);
        for (Lease permit : this.permits) {
            permit.onLost(this::permitLost);
        }
    }

    static SlotLease live(String id) {
        return LIVE.get(id);
    }

    DefaultLockClient client() {
        return semaphore.client();
    }

    SlotSemaphore semaphore() {
        return semaphore;
    }

    List<Lease> permitLeases() {
        return permits;
    }

    private void permitLost(LeaseLostEvent permitLoss) {
        List<Consumer<LeaseLostEvent>> toCall;
        LeaseLostEvent event;
        synchronized (this) {
            if (lost != null || closed.get()) {
                return;
            }
            lost = new LeaseLostEvent(semaphore.name(), token, holder(), permitLoss.reason(),
                    "its permit lock '" + permitLoss.lockName() + "' was lost: " + permitLoss.detail(),
                    permitLoss.cause());
            event = lost;
            toCall = List.copyOf(callbacks);
            callbacks.clear();
        }
        LIVE.remove(id);
        // All or nothing: the other permits of a lost holding go back at once. The lost one is left to its holder's
        // close (as a lost lease is): the store frees it at its TTL, or the close releases it, owner-checked.
        for (Lease permit : permits) {
            if (!permit.lockName().equals(permitLoss.lockName())) {
                permit.closeAsync();
            }
        }
        for (Consumer<LeaseLostEvent> callback : toCall) {
            DefaultLockClient.runCallback(callback, event);
        }
        Thread thread = holderThread;
        if (thread != null && semaphore.options().lossAction() == LossAction.NOTIFY_AND_INTERRUPT_HOLDER) {
            thread.interrupt();
        }
    }

    @Override
    public String semaphoreName() {
        return semaphore.name();
    }

    @Override
    public String lockName() {
        return semaphore.name();
    }

    @Override
    public String id() {
        return id;
    }

    @Override
    public int permits() {
        return permits.size();
    }

    @Override
    public long fencingToken() {
        return token;
    }

    @Override
    public HolderIdentity holder() {
        return permits.get(0).holder();
    }

    @Override
    public boolean isHeld() {
        if (closed.get()) {
            return false;
        }
        for (Lease permit : permits) {
            if (!permit.isHeld()) {
                return false;
            }
        }
        return true;
    }

    @Override
    public void ensureHeld() {
        if (closed.get()) {
            throw new IllegalMonitorStateException("lease on " + semaphore.kind() + " '" + semaphore.name()
                    + "' (token " + token + ") was already closed");
        }
        for (Lease permit : permits) {
            try {
                permit.ensureHeld();
            } catch (LockLostException e) {
                LeaseLostEvent event;
                synchronized (this) {
                    event = lost;
                }
                if (event == null) {
                    event = new LeaseLostEvent(semaphore.name(), token, holder(), e.event().reason(),
                            "its permit lock '" + e.event().lockName() + "' was lost: " + e.event().detail(),
                            e.event().cause());
                }
                throw new LockLostException(event);
            } catch (IllegalMonitorStateException e) {
                // Released by a loss of another permit of this holding.
                LeaseLostEvent event;
                synchronized (this) {
                    event = lost;
                }
                if (event == null) {
                    throw e;
                }
                throw new LockLostException(event);
            }
        }
    }

    @Override
    public PermitLease onLost(Consumer<LeaseLostEvent> callback) {
        Objects.requireNonNull(callback, "callback cannot be null");
        LeaseLostEvent already;
        synchronized (this) {
            already = lost;
            if (already == null) {
                callbacks.add(callback);
            }
        }
        if (already != null) {
            DefaultLockClient.runCallback(callback, already);
        }
        return this;
    }

    @Override
    public int holdCount() {
        return 1;
    }

    @Override
    public PermitLease handOff() {
        if (closed.get()) {
            throw new IllegalMonitorStateException("lease on " + semaphore.kind() + " '" + semaphore.name()
                    + "' (token " + token + ") was already closed: there is nothing to hand off");
        }
        holderThread = null;
        return this;
    }

    /** Binds a lease granted to a blocking acquire to its thread (interrupted on loss if the options say so). */
    void bindTo(Thread thread) {
        holderThread = thread;
    }

    /** Whether this is a read-write lock's write lease. */
    boolean isExclusive() {
        return exclusive;
    }

    /** Whether this lease is bound to {@code thread}: from its blocking acquire, and not handed off. */
    boolean isBoundTo(Thread thread) {
        return holderThread == thread;
    }

    /** Whether this lease has been closed (by its holder, a release by id, or a downgrade). */
    boolean isClosed() {
        return closed.get();
    }

    /**
     * Closes this lease without releasing {@code kept}, one of its permits, which the caller now owns (a downgrade).
     *
     * @return false if this lease was already closed
     */
    boolean closeKeeping(Lease kept) {
        if (!closed.compareAndSet(false, true)) {
            return false;
        }
        LIVE.remove(id);
        for (Lease permit : permits) {
            if (permit != kept) {
                permit.closeAsync();
            }
        }
        return true;
    }

    /** Closes a lease known to be held: true if this call closed it. */
    boolean closeHeld() {
        if (closed.get()) {
            return false;
        }
        close();
        return true;
    }

    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        LIVE.remove(id);
        LockStoreException failure = null;
        for (Lease permit : permits) {
            try {
                permit.close();
            } catch (LockStoreException e) {
                if (failure == null) {
                    failure = e;
                } else {
                    failure.addSuppressed(e);
                }
            }
        }
        if (failure != null) {
            throw failure;
        }
    }

    @Override
    public CompletableFuture<Void> closeAsync() {
        if (!closed.compareAndSet(false, true)) {
            return CompletableFuture.completedFuture(null);
        }
        LIVE.remove(id);
        return CompletableFuture.allOf(permits.stream().map(Lease::closeAsync).toArray(CompletableFuture[]::new));
    }

    @Override
    public String toString() {
        return "PermitLease[" + semaphore.name() + ", " + permits.size() + " permit(s), token " + token + ", "
                + (closed.get() ? "closed" : lost != null ? "lost" : "held") + "]";
    }
}
