package io.locksmith.spi;

import io.locksmith.LockStoreException;
import org.junit.jupiter.api.Test;

import java.lang.reflect.Proxy;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

class LockProviderFactoryTest {

    /** A provider that only counts its closes, and fails them with {@code closeFailure} if that is not null. */
    private static LockProvider provider(AtomicInteger closes, RuntimeException closeFailure) {
        return (LockProvider) Proxy.newProxyInstance(LockProvider.class.getClassLoader(),
                new Class<?>[] {LockProvider.class}, (proxy, method, args) -> {
                    if (method.getName().equals("close")) {
                        closes.incrementAndGet();
                        if (closeFailure != null) {
                            throw closeFailure;
                        }
                        return null;
                    }
                    throw new UnsupportedOperationException(method.getName());
                });
    }

    @Test
    void aProviderThatPassesItsFirstCheckIsHandedOutOpen() {
        AtomicInteger closes = new AtomicInteger();
        AtomicInteger checks = new AtomicInteger();
        LockProvider provider = provider(closes, null);

        assertSame(provider, LockProviderFactory.closeOnFailure(provider, p -> checks.incrementAndGet()));
        assertEquals(1, checks.get());
        assertEquals(0, closes.get());
    }

    @Test
    void aProviderThatFailsItsFirstCheckIsClosedAndTheFailureRethrown() {
        AtomicInteger closes = new AtomicInteger();
        LockStoreException unreachable = new LockStoreException("store.example:1 cannot be reached", null);

        LockStoreException thrown = assertThrows(LockStoreException.class, () ->
                LockProviderFactory.closeOnFailure(provider(closes, null), p -> {
                    throw unreachable;
                }));

        assertSame(unreachable, thrown);
        assertEquals(1, closes.get());
        assertArrayEquals(new Throwable[0], thrown.getSuppressed());
    }

    @Test
    void aFailedCloseIsAttachedToTheCheckFailure() {
        AtomicInteger closes = new AtomicInteger();
        IllegalStateException closeFailure = new IllegalStateException("pool already shut down");
        LockStoreException unreachable = new LockStoreException("store.example:1 cannot be reached", null);

        LockStoreException thrown = assertThrows(LockStoreException.class, () ->
                LockProviderFactory.closeOnFailure(provider(closes, closeFailure), p -> {
                    throw unreachable;
                }));

        assertSame(unreachable, thrown);
        assertEquals(1, closes.get());
        assertArrayEquals(new Throwable[] {closeFailure}, thrown.getSuppressed());
    }

    @Test
    void nullArgumentsAreRefused() {
        assertThrows(NullPointerException.class, () -> LockProviderFactory.closeOnFailure(null, p -> { }));
        assertThrows(NullPointerException.class,
                () -> LockProviderFactory.closeOnFailure(provider(new AtomicInteger(), null), null));
    }
}
