package io.locksmith.tck;

import io.locksmith.DistributedLock;
import io.locksmith.LockClient;
import io.locksmith.LockOptions;

import java.util.Locale;
import java.util.Objects;

/**
 * Which primitive an exclusive holding is taken through: the mutex itself, or an exclusive use of a primitive that
 * the shared client builds from the store's locks. Each shape gives a {@link DistributedLock} whose leases exclude
 * each other, so the {@link ContentionWorkload}, the {@link FencedRegister} and the fault tools check it exactly as
 * they check a mutex: no two holders overlap, and the fence rejects every late write.
 * <pre>{@code
 * DistributedLock writes = LockShape.WRITE_LOCK.lock(client, "prices", options);
 * try (Lease lease = writes.acquire(wait)) { ... }     // the write lock of readWriteLock("prices", options, 4)
 * }</pre>
 *
 * <p>The fencing token of a permit lease or a write lease is the token of the primitive's gate lock (SPEC R11.6,
 * R12.6): strictly increasing per name across holders, as a mutex's, so the register judges it the same way. A
 * shape's name is its store locks' prefix only: the store holds {@code NAME#permit...} or {@code NAME#rw...}, never a
 * lock called {@code NAME}, so a check that asks for the holding by name must go through {@link #lock}.
 */
public enum LockShape {

    /** The lock itself: {@code client.lock(name, options)}. */
    MUTEX {
        @Override
        public DistributedLock lock(LockClient client, String name, LockOptions options) {
            return client.lock(name, options);
        }
    },

    /**
     * The write lock of {@code client.readWriteLock(name, options, 4)}: each holding takes all 4 of its reader
     * permits through the gate of {@code NAME#rw}.
     */
    WRITE_LOCK {
        @Override
        public DistributedLock lock(LockClient client, String name, LockOptions options) {
            return client.readWriteLock(name, options, WRITE_LOCK_MAX_READERS).writeLock();
        }
    },

    /**
     * Every permit of {@code client.semaphore(name, 3, options)} at once, through {@code asLock(3)}: each holding is
     * one permit lease of 3 permit locks, taken through the semaphore's gate.
     */
    SEMAPHORE {
        @Override
        public DistributedLock lock(LockClient client, String name, LockOptions options) {
            return client.semaphore(name, SEMAPHORE_PERMITS, options).asLock(SEMAPHORE_PERMITS);
        }
    },

    /**
     * A term of {@code client.election(name, options)}: an acquire joins a new candidate and waits for its leadership
     * (a candidate not elected within the wait leaves), and closing the holding makes it leave. Two leaders whose
     * believed terms overlap are then two holders inside at once, and a deposed leader's late write carries an older
     * term's token. A {@code tryAcquire()} without a wait answers empty if the store names a leader, and otherwise
     * waits up to 2 s for its campaign's answer. Not a Java {@code Lock} ({@code asJavaLock()} throws).
     */
    ELECTION_TERM {
        @Override
        public DistributedLock lock(LockClient client, String name, LockOptions options) {
            return new ElectionTermLock(client, name, options);
        }
    };

    /** The readers the {@link #WRITE_LOCK}'s read-write lock admits; its writer takes as many permits. */
    public static final int WRITE_LOCK_MAX_READERS = 4;

    /** The permits of the {@link #SEMAPHORE}'s semaphore, every one of which each holding takes. */
    public static final int SEMAPHORE_PERMITS = 3;

    /**
     * The exclusive lock of this shape on {@code name}, through {@code client}, with {@code options}. Every client that
     * contends for {@code name} must use the same shape: the shapes' store locks have different names.
     *
     * @throws NullPointerException     if an argument is null
     * @throws IllegalArgumentException if the name is not valid for this primitive (see {@link LockClient}), or the
     *                                  store cannot honour the lease time
     * @throws IllegalStateException    if the client is closed
     */
    public abstract DistributedLock lock(LockClient client, String name, LockOptions options);

    /** The shape's name on a command line: {@code mutex}, {@code write-lock}, {@code semaphore} or {@code election-term}. */
    public String argument() {
        return name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    /**
     * The shape of a command-line {@link #argument()}, case-insensitive.
     *
     * @throws NullPointerException     if {@code argument} is null
     * @throws IllegalArgumentException if it names no shape; the message lists the shapes
     */
    public static LockShape fromArgument(String argument) {
        Objects.requireNonNull(argument, "argument cannot be null");
        for (LockShape shape : values()) {
            if (shape.argument().equalsIgnoreCase(argument.strip())) {
                return shape;
            }
        }
        throw new IllegalArgumentException("unknown lock shape '" + argument + "': use mutex, write-lock, semaphore or election-term");
    }
}
