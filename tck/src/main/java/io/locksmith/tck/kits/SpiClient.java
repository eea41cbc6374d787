package io.locksmith.tck.kits;

import io.locksmith.LockClient;
import io.locksmith.tck.FaultInjector;

/** A client of the kit's own making on {@link StoreHooks#storeUri()}: its provider is wrapped by {@code faults}. */
record SpiClient(LockClient client, FaultInjector faults) {
}
