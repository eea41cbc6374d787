package io.locksmith.lockctl;

import io.locksmith.spi.LockUri;

import java.time.Duration;
import java.util.List;

/**
 * Lists the names of held locks in one kind of store, by reading the backend's key layout with the store's
 * own client. The SPI has no listing, so this lives in lockctl, next to the layouts it reads.
 */
interface LockLister {

    /**
     * The names of the locks whose names start with {@code prefix}.
     *
     * @throws io.locksmith.LockStoreException if the store cannot be reached
     */
    List<String> list(LockUri uri, String prefix, Duration timeout);
}
