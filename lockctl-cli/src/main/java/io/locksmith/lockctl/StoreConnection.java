package io.locksmith.lockctl;

import io.locksmith.LockClient;
import io.locksmith.LockStoreException;
import io.locksmith.migrate.Migration;
import io.locksmith.spi.LockUri;
import io.locksmith.spi.ProviderClientBuilder;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Opens the client of a read-only command: within the command's {@code --timeout} (a store's own connect time-out
 * can be far longer), and for a {@code migrate:} URI as an observer ({@link Migration#observer()}), which announces
 * no phase, so that the command writes nothing to either store and is not refused by the phase guard.
 */
final class StoreConnection {

    private StoreConnection() {
    }

    /**
     * @throws LockStoreException if the client is not open within {@code timeout} (it is closed when it opens later)
     */
    static LockClient open(String uri, Duration timeout) {
        boolean migration = LockUri.parse(uri).scheme().equals("migrate");
        CompletableFuture<LockClient> opening = CompletableFuture.supplyAsync(() -> migration
                ? ProviderClientBuilder.create().uri(uri).factory(Migration.observer()).build()
                : LockClient.open(uri));
        try {
            return opening.get(timeout.toNanos(), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            opening.thenAccept(LockClient::close);
            throw new LockStoreException("could not connect to " + LockUri.redact(uri) + " within " + timeout.toMillis()
                    + " ms (--timeout)", e);
        } catch (ExecutionException e) {
            throw e.getCause() instanceof RuntimeException runtime ? runtime : new LockStoreException(
                    "could not connect to " + LockUri.redact(uri) + ": " + e.getCause(), e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            opening.thenAccept(LockClient::close);
            throw new LockStoreException("interrupted while connecting to " + LockUri.redact(uri), e);
        }
    }
}
