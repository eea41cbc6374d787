package io.locksmith.spi;

import java.time.Duration;
import java.util.Map;

/**
 * Small key-value records a store keeps beside its locks, for coordination features of the client such
 * as the migration phase guard. Optional: a provider offers it through {@link LockProvider#registry()}.
 * Keys are short printable strings with {@code /} as separator; values are short strings.
 *
 * <p>Reads must be linearizable with writes (what was put before a read began is seen by it), as the
 * migration guard relies on that to order clients.
 */
public interface Registry {

    /**
     * Writes {@code value} under {@code key}, replacing what was there.
     *
     * @param ttl how long the record lives without being put again; {@code null} for a record that stays
     *            until removed
     * @throws io.locksmith.LockStoreException if the store could not be asked
     */
    void put(String key, String value, Duration ttl);

    /**
     * The live records whose key starts with {@code prefix}.
     *
     * @throws io.locksmith.LockStoreException if the store could not be asked
     */
    Map<String, String> list(String prefix);

    /**
     * Removes a record; removing a missing one does nothing.
     *
     * @throws io.locksmith.LockStoreException if the store could not be asked
     */
    void remove(String key);
}
