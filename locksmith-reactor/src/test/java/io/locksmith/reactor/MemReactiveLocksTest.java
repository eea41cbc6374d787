package io.locksmith.reactor;

import java.util.UUID;

/** {@link ReactiveLocksContract} on {@code mem://}, a store of its own per test. */
class MemReactiveLocksTest extends ReactiveLocksContract {

    @Override
    String storeUri() {
        return "mem://reactive-" + UUID.randomUUID();
    }
}
