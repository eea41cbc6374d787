package io.locksmith.tck;

import io.locksmith.mem.MemLockProviderFactory;
import io.locksmith.spi.LockProvider;
import io.locksmith.spi.LockUri;
import io.locksmith.spi.ProviderContext;

import java.util.UUID;

class MemRegistryTest extends RegistryTck {
    private final String store = "registry-" + UUID.randomUUID();

    @Override
    protected LockProvider newProvider() {
        return new MemLockProviderFactory().create(LockUri.parse("mem://" + store),
                new ProviderContext("test", (grant, reason, cause) -> { }));
    }
}
