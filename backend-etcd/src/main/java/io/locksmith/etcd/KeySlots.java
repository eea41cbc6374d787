package io.locksmith.etcd;

import java.util.BitSet;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;

/**
 * Which key of a lock's directory each of this client's holders and waiters uses: {@code <client key id>.<slot>},
 * where the slot is the smallest number no other holder or waiter of this client uses on that name.
 *
 * <p>Why not a key per holding: etcd keeps every key ever written in its in-memory index, deleted ones too, until
 * the cluster is compacted, and a read of a lock's directory (every acquire reads its head) walks all of them. With a
 * new key per holding, a name taken 20,000 times since the last compaction made each acquire about 8 ms slower
 * (docs/PERFORMANCE.md, "etcd: one key per client and slot"). With slots, a name has as many keys in the index as
 * clients have ever waited on it at once, whatever the number of holdings.
 *
 * <p>A slot is given back only once the key is known to be deleted (or never to have been written); until then a
 * holding or waiter keeps it, so two owners of this client never share a key, and deleting a key by name never
 * touches another owner's holding. The key id is random per provider: no other client, and no earlier run of this
 * one, writes under it.
 */
final class KeySlots {

    private record Claim(String name, String ownerId) {
    }

    private final String clientKeyId = UUID.randomUUID().toString().replace("-", "");
    private final Map<Claim, Integer> byOwner = new HashMap<>();
    private final Map<String, BitSet> usedByName = new HashMap<>();
    /** How many acquire attempts of each owner are running in the provider now (more than one only in a race). */
    private final Map<String, Integer> attemptsInFlight = new HashMap<>();

    /** An acquire attempt of {@code ownerId} starts: until it ends, a clean-up does not give its slot back. */
    synchronized void attemptStarted(String ownerId) {
        attemptsInFlight.merge(ownerId, 1, Integer::sum);
    }

    /** The acquire attempt of {@code ownerId} ended. */
    synchronized void attemptEnded(String ownerId) {
        attemptsInFlight.computeIfPresent(ownerId, (id, count) -> count == 1 ? null : count - 1);
    }

    /**
     * Gives the slot of {@code ownerId} on {@code name} back after a clean-up deleted its key, unless an attempt of
     * that owner is still running: it may put the key again after the deletion (its request reaches etcd later), so
     * the key is not known to be deleted. The shared client cleans up again once that attempt has ended (a late
     * attempt's cancel or release), which finds the slot and deletes what the attempt left.
     *
     * @return whether the slot was given back
     */
    synchronized boolean freeAfterCleanUp(String name, String ownerId) {
        if (attemptsInFlight.containsKey(ownerId)) {
            return false;
        }
        free(name, ownerId);
        return true;
    }

    /** The key part of {@code ownerId} on {@code name}: its slot, claimed now if it has none yet. */
    synchronized String claim(String name, String ownerId) {
        Claim claim = new Claim(name, ownerId);
        Integer slot = byOwner.get(claim);
        if (slot == null) {
            BitSet used = usedByName.computeIfAbsent(name, n -> new BitSet());
            slot = used.nextClearBit(0);
            used.set(slot);
            byOwner.put(claim, slot);
        }
        return keyPart(slot);
    }

    /** The key part of {@code ownerId} on {@code name}, or null if it has no slot (it wrote no key of that name). */
    synchronized String current(String name, String ownerId) {
        Integer slot = byOwner.get(new Claim(name, ownerId));
        return slot == null ? null : keyPart(slot);
    }

    /** Gives the slot of {@code ownerId} on {@code name} back: its key is deleted, or was never written. */
    synchronized void free(String name, String ownerId) {
        Integer slot = byOwner.remove(new Claim(name, ownerId));
        if (slot == null) {
            return;
        }
        BitSet used = usedByName.get(name);
        used.clear(slot);
        if (used.isEmpty()) {
            usedByName.remove(name);
        }
    }

    /** How many owners have a slot now (tests). */
    synchronized int claimed() {
        return byOwner.size();
    }

    private String keyPart(int slot) {
        return clientKeyId + "." + slot;
    }
}
