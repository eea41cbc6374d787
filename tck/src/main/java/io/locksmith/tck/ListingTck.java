package io.locksmith.tck;

import io.locksmith.Lease;
import io.locksmith.LockClient;
import io.locksmith.LockInfo;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.List;
import java.util.UUID;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The contract of the optional listing ({@link io.locksmith.spi.LockProvider#list(String)}, used by
 * {@link LockClient#list} and {@code lockctl inspect --prefix}): the held locks under a prefix, each with its
 * holder and fencing token, sorted by name; free and released names are left out. Extend it with a client on a
 * live store. A provider that cannot list does not need it.
 */
@Timeout(60)
public abstract class ListingTck {

    private static final Duration LIST_TIMEOUT = Duration.ofSeconds(10);

    private LockClient holder;
    private LockClient reader;
    private String prefix;

    /** A new client on the store under test; the kit closes it. Called twice: a holder and a reader. */
    protected abstract LockClient newClient();

    @BeforeEach
    void open() {
        holder = newClient();
        reader = newClient();
        prefix = "tck-list-" + UUID.randomUUID() + "/";
    }

    @AfterEach
    void close() {
        holder.close();
        reader.close();
    }

    @Test
    void heldLocksUnderThePrefixComeWithHolderAndToken() {
        try (Lease b = holder.lock(prefix + "b").acquire(Duration.ofSeconds(5));
             Lease a = holder.lock(prefix + "a").acquire(Duration.ofSeconds(5));
             Lease outside = holder.lock(prefix.substring(0, prefix.length() - 1) + "-outside").acquire(
                     Duration.ofSeconds(5))) {
            List<LockInfo> listed = reader.list(prefix, LIST_TIMEOUT);

            assertEquals(List.of(prefix + "a", prefix + "b"), listed.stream().map(LockInfo::lockName).toList(),
                    "names under " + prefix + ", sorted: " + listed);
            assertEquals(holder.clientId(), listed.get(0).holder().clientId(), listed.toString());
            assertEquals(a.fencingToken(), listed.get(0).fencingToken(), listed.toString());
            assertEquals(b.fencingToken(), listed.get(1).fencingToken(), listed.toString());
            assertEquals(Thread.currentThread().getName(), listed.get(1).holder().thread(), listed.toString());
            assertTrue(outside.isHeld());
        }
    }

    @Test
    void releasedAndNeverTakenNamesAreNotListed() {
        try (Lease kept = holder.lock(prefix + "kept").acquire(Duration.ofSeconds(5))) {
            holder.lock(prefix + "released").acquire(Duration.ofSeconds(5)).close();

            List<LockInfo> listed = reader.list(prefix, LIST_TIMEOUT);

            assertEquals(List.of(prefix + "kept"), listed.stream().map(LockInfo::lockName).toList(), listed.toString());
            assertTrue(kept.isHeld());
        }
        assertEquals(List.of(), reader.list(prefix, LIST_TIMEOUT));
    }

    @Test
    void namesWithCharactersTheStoreEscapesAreListedAsTheyWere() {
        String odd = prefix + "a/b%2F c*{x}";
        try (Lease lease = holder.lock(odd).acquire(Duration.ofSeconds(5))) {
            List<LockInfo> listed = reader.list(prefix, LIST_TIMEOUT);

            assertEquals(List.of(odd), listed.stream().map(LockInfo::lockName).toList(), listed.toString());
            assertEquals(lease.fencingToken(), listed.get(0).fencingToken());
        }
    }
}
