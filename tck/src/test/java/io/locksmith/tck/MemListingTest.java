package io.locksmith.tck;

import io.locksmith.LockClient;

import java.util.UUID;

/** Listing held locks by prefix on the in-memory store. */
class MemListingTest extends ListingTck {

    private final String store = "listing-" + UUID.randomUUID();

    @Override
    protected LockClient newClient() {
        return LockClient.open("mem://" + store);
    }
}
