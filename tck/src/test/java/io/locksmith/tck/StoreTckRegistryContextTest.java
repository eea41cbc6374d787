package io.locksmith.tck;

import io.locksmith.LockClient;
import io.locksmith.spi.LockProvider;
import io.locksmith.spi.LockProviderFactory;
import io.locksmith.spi.LockUri;
import io.locksmith.spi.ProviderContext;
import io.locksmith.mem.MemLockProviderFactory;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The registry kit of {@link StoreTck} opens its providers without a client; each must still get a client id of its
 * own, as {@link ProviderContext#clientId()} promises (a store may name a connection or an instance after it: an
 * author who did so failed when every provider got the same id).
 */
class StoreTckRegistryContextTest {

    /** The client id grammar of LockClient.Builder.clientId. */
    private static final String CLIENT_ID = "[A-Za-z0-9._:-]{1,64}";

    @Test
    void everyProviderOfTheRegistryKitGetsAClientIdOfItsOwn() {
        List<String> clientIds = new CopyOnWriteArrayList<>();
        LockProviderFactory recording = new LockProviderFactory() {
            @Override
            public Set<String> schemes() {
                return Set.of("mem");
            }

            @Override
            public LockProvider create(LockUri uri, ProviderContext context) {
                clientIds.add(context.clientId());
                return new MemLockProviderFactory().create(uri, context);
            }
        };
        // The hooks every StoreTck hands its registry kit (io.locksmith.tck.kits.StoreHooks), on a recording factory.
        io.locksmith.tck.kits.StoreHooks kit = new io.locksmith.tck.kits.StoreHooks() {
            @Override
            public String kitName() {
                return "StoreTckRegistryContextTest";
            }

            @Override
            public String storeUri() {
                return "mem://store-tck-context";
            }

            @Override
            public LockProviderFactory storeFactory(String scheme) {
                return recording;
            }
        };
        try (LockProvider first = kit.newProvider();
             LockProvider second = kit.newProvider()) {
            assertEquals(2, clientIds.size());
            assertNotEquals(clientIds.get(0), clientIds.get(1), "two providers of the registry kit share a client id");
            clientIds.forEach(id -> assertTrue(id.matches(CLIENT_ID), "'" + id + "' is not a valid client id"));
            // A client id the kit makes is one a client would accept too.
            LockClient.builder().uri("mem://store-tck-context").clientId(clientIds.get(0)).build().close();
        }
    }
}
