package io.locksmith.tck;

import io.locksmith.mem.MemStore;

import java.util.UUID;

/** The primitives' kit against {@code mem://}, one store per kit instance. */
class MemPrimitivesTck extends PrimitivesTck {

    private final String store = "primitives-" + UUID.randomUUID();

    @Override
    protected String storeUri() {
        return "mem://" + store;
    }

    @Override
    protected void expireBehindClientsBack(String lockName) {
        MemStore.named(store).expire(lockName);
    }
}
