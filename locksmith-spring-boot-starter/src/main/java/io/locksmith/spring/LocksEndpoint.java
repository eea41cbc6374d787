package io.locksmith.spring;

import io.locksmith.HolderIdentity;
import io.locksmith.LockClient;
import io.locksmith.LockInfo;
import io.locksmith.LockStoreException;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.actuate.endpoint.OperationResponseBody;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;

import java.time.Duration;
import java.util.List;

/**
 * The actuator endpoint {@code locks}: the locks held in the store now, by anyone, with holder, fencing token,
 * remaining lease and, for this instance's own locks, their age. {@code GET /actuator/locks?prefix=order:} lists the
 * names that start with {@code order:}. Works on every store that can list its locks ({@link LockClient#list});
 * on another the answer says so. Reads only. Expose it on the web with
 * {@code management.endpoints.web.exposure.include=health,locks}: it shows lock names and holders' process and thread
 * names.
 */
@Endpoint(id = "locks")
public class LocksEndpoint {

    /** How long a listing may take: an actuator answer must not hang on a store that does not answer. */
    static final Duration LIST_TIMEOUT = Duration.ofSeconds(5);

    private final LockClient client;
    private final LockAges ages;

    LocksEndpoint(LockClient client, LockAges ages) {
        this.client = client;
        this.ages = ages;
    }

    /**
     * Lists the held locks whose names start with {@code prefix} (all when it is null), sorted by name.
     *
     * @param prefix the start of the names, or null for every lock
     * @return the store, this client's id and the locks; or the reason the store could not list them
     */
    @ReadOperation
    public HeldLocks locks(@Nullable String prefix) {
        List<LockInfo> held;
        try {
            held = client.list(prefix == null ? "" : prefix, LIST_TIMEOUT);
        } catch (UnsupportedOperationException | LockStoreException e) {
            return new HeldLocks(client.describe(), client.clientId(), List.of(), e.getMessage());
        }
        return new HeldLocks(client.describe(), client.clientId(), held.stream().map(this::describe).toList(), null);
    }

    private HeldLock describe(LockInfo lock) {
        HolderIdentity holder = lock.holder();
        boolean mine = holder != null && client.clientId().equals(holder.clientId());
        Long ageMillis = mine ? ages.ageOf(lock.lockName(), lock.fencingToken()).map(Duration::toMillis).orElse(null)
                : null;
        return new HeldLock(lock.lockName(),
                holder == null ? null : new Holder(holder.clientId(), holder.process(), holder.thread(),
                        holder.traceId()),
                mine, ageMillis, lock.fencingToken(),
                lock.timeToLive().map(Duration::toMillis).orElse(null), lock.waiters().size());
    }

    /**
     * The answer of the endpoint.
     *
     * @param store    the store, without credentials
     * @param clientId this instance's client id
     * @param locks    the held locks, sorted by name
     * @param error    why the store could not list its locks, or null
     */
    public record HeldLocks(String store, String clientId, List<HeldLock> locks, @Nullable String error)
            implements OperationResponseBody {
    }

    /**
     * One held lock.
     *
     * @param name                the lock's name
     * @param holder              who holds it
     * @param heldByThisInstance  whether this instance's client holds it
     * @param ageMillis           how long it has been held, for this instance's own locks (the store does not say)
     * @param fencingToken        the holder's fencing token
     * @param remainingMillis     how long the store keeps it without a renewal, where the store knows
     * @param waiters             how many wait in the store's queue for it, where the store keeps one
     */
    public record HeldLock(String name, @Nullable Holder holder, boolean heldByThisInstance, @Nullable Long ageMillis,
                           long fencingToken, @Nullable Long remainingMillis, int waiters) {
    }

    /**
     * Who holds a lock.
     *
     * @param clientId the holder's client id
     * @param process  the holder's process (pid@host)
     * @param thread   the thread that acquired it
     * @param traceId  the trace id current when it was acquired, or null
     */
    public record Holder(String clientId, String process, String thread, @Nullable String traceId) {
    }
}
