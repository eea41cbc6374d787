package io.locksmith.spring;

import io.locksmith.Lease;

/**
 * Work done by {@link LockTemplate#executeWithLock(String, java.time.Duration, LockCallback)} while the lock is held.
 *
 * @param <T> what the work returns
 */
@FunctionalInterface
public interface LockCallback<T> {

    /**
     * Does the work.
     *
     * @param lease the held lease: pass {@link Lease#fencingToken()} to the resource you write, and call
     *              {@link Lease#ensureHeld()} before an irreversible step
     * @return the result of {@code executeWithLock}
     */
    T doWithLock(Lease lease);
}
