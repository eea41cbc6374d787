package io.locksmith.tck.kits;

import io.locksmith.Lease;
import io.locksmith.LockClient;
import io.locksmith.LockInfo;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.UUID;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The contract of the optional listing ({@link io.locksmith.spi.LockProvider#list(String)}, used by
 * {@link LockClient#list} and {@code lockctl inspect --prefix}): the held locks under a prefix, each with its
 * holder and fencing token, sorted by name; free and released names are left out. Outside the numbered rules; run
 * by {@link io.locksmith.tck.StoreTck} and {@link io.locksmith.tck.ListingTck}. Each test opens a holder and a
 * reader client.
 */
public interface ListingKit extends RuleKit {

    @Test
    default void heldLocksUnderThePrefixComeWithHolderAndToken() {
        KitContext kit = kitContext();
        LockClient holder = kit.client();
        LockClient reader = kit.client();
        String prefix = listingPrefix();
        try (Lease b = holder.lock(prefix + "b").acquire(Duration.ofSeconds(5));
             Lease a = holder.lock(prefix + "a").acquire(Duration.ofSeconds(5));
             Lease outside = holder.lock(prefix.substring(0, prefix.length() - 1) + "-outside").acquire(
                     Duration.ofSeconds(5))) {
            List<LockInfo> listed = reader.list(prefix, listTimeout());

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
    default void releasedAndNeverTakenNamesAreNotListed() {
        KitContext kit = kitContext();
        LockClient holder = kit.client();
        LockClient reader = kit.client();
        String prefix = listingPrefix();
        try (Lease kept = holder.lock(prefix + "kept").acquire(Duration.ofSeconds(5))) {
            holder.lock(prefix + "released").acquire(Duration.ofSeconds(5)).close();

            List<LockInfo> listed = reader.list(prefix, listTimeout());

            assertEquals(List.of(prefix + "kept"), listed.stream().map(LockInfo::lockName).toList(), listed.toString());
            assertTrue(kept.isHeld());
        }
        assertEquals(List.of(), reader.list(prefix, listTimeout()));
    }

    @Test
    default void namesWithCharactersTheStoreEscapesAreListedAsTheyWere() {
        KitContext kit = kitContext();
        LockClient holder = kit.client();
        LockClient reader = kit.client();
        String prefix = listingPrefix();
        String odd = prefix + "a/b%2F c*{x}";
        try (Lease lease = holder.lock(odd).acquire(Duration.ofSeconds(5))) {
            List<LockInfo> listed = reader.list(prefix, listTimeout());

            assertEquals(List.of(odd), listed.stream().map(LockInfo::lockName).toList(), listed.toString());
            assertEquals(lease.fencingToken(), listed.get(0).fencingToken());
        }
    }

    /** The bound of one listing call. */
    private static Duration listTimeout() {
        return Duration.ofSeconds(10);
    }

    /** A prefix no other test uses. */
    private static String listingPrefix() {
        return "tck-list-" + UUID.randomUUID() + "/";
    }
}
