package io.locksmith.shedlock;

import io.locksmith.Lease;
import net.javacrumbs.shedlock.core.AbstractSimpleLock;
import net.javacrumbs.shedlock.core.ClockProvider;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.SimpleLock;

import java.time.Duration;
import java.util.Optional;

/**
 * A ShedLock lock held through a Locksmith {@link Lease}: unlocked by closing the lease (kept until
 * {@code lockAtLeastFor} if that has not passed), extended by {@link Lease#extend}, with the lease's fencing token.
 * ShedLock's base class makes a lock that was unlocked or extended refuse further use.
 */
public final class LocksmithSimpleLock extends AbstractSimpleLock {

    private final Lease lease;
    private final LocksmithLockProvider provider;

    LocksmithSimpleLock(LockConfiguration configuration, Lease lease, LocksmithLockProvider provider) {
        super(configuration);
        this.lease = lease;
        this.provider = provider;
    }

    /**
     * The fencing token of this lock: strictly greater than every earlier holder's of the name on a store that declares
     * {@code FENCING}. Pass it with the job's writes so that a resource can refuse those of a holder whose lock ran out.
     */
    public long fencingToken() {
        return lease.fencingToken();
    }

    /** Whether the store lock is still held as far as this process can tell (its lease has not run out or been lost). */
    public boolean isHeld() {
        return lease.isHeld() && !ClockProvider.now().isAfter(lockConfiguration.getLockAtMostUntil());
    }

    @Override
    protected void doUnlock() {
        LocksmithLockProvider.unbindFromThread(this);
        Duration keep = LocksmithLockProvider.until(lockConfiguration.getLockAtLeastUntil());
        if (keep.isNegative() || keep.isZero()) {
            lease.close();
        } else {
            lease.closeAfter(keep);
        }
    }

    @Override
    protected Optional<SimpleLock> doExtend(LockConfiguration newConfiguration) {
        // ShedLock's lock ends at lockAtMostFor even where the store lock lasts longer (the store's shortest lease).
        if (ClockProvider.now().isAfter(lockConfiguration.getLockAtMostUntil()) || !lease.isHeld()) {
            LocksmithLockProvider.unbindFromThread(this);
            lease.close();
            return Optional.empty();
        }
        Duration atMost = provider.leaseTime(newConfiguration, LocksmithLockProvider.until(
                newConfiguration.getLockAtMostUntil()));
        if (!lease.extend(atMost)) {
            LocksmithLockProvider.unbindFromThread(this);
            lease.close();
            return Optional.empty();
        }
        LocksmithSimpleLock extended = new LocksmithSimpleLock(newConfiguration, lease, provider);
        LocksmithLockProvider.replaceOnItsThread(this, extended);
        return Optional.of(extended);
    }

    @Override
    public String toString() {
        return "LocksmithSimpleLock[" + lockConfiguration.getName() + ", token " + lease.fencingToken() + "]";
    }
}
