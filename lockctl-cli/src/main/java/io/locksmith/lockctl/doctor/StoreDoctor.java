package io.locksmith.lockctl.doctor;

import io.locksmith.spi.LockUri;

import java.time.Duration;
import java.util.List;
import java.util.Set;

/**
 * The store-specific checks of {@code lockctl doctor}, made with the store's own client (Jedis, Curator,
 * jetcd). Implementations only read: they never write to the store.
 */
interface StoreDoctor {

    /** The URI schemes these checks understand. */
    Set<String> schemes();

    /**
     * Runs the checks.
     *
     * @param timeout how long any one request may take
     * @return the findings, in the order they were made
     * @throws io.locksmith.LockStoreException        if no node of the store can be reached
     * @throws io.locksmith.LockConfigurationException if the URI does not suit the store
     */
    List<Finding> examine(LockUri uri, Duration timeout);
}
