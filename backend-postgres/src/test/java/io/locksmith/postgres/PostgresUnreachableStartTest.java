package io.locksmith.postgres;

import com.zaxxer.hikari.HikariConfig;
import io.locksmith.LockClient;
import io.locksmith.LockStoreException;
import io.locksmith.spi.LockUri;
import io.locksmith.tck.server.FreePorts;
import org.junit.jupiter.api.Test;

import java.net.ConnectException;
import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Opening a client on a PostgreSQL that is not there fails within the URI's connect time-out: one session attempt
 * bounded by it, not the pool's start-up check, which tried again every second for the whole connect time-out and
 * slept a second more (about 11 s by default).
 */
class PostgresUnreachableStartTest {

    @Test
    void aRefusedConnectionFailsTheOpenAtOnceNamingTheStoreWithoutThePassword() {
        int port = FreePorts.next(); // reserved for this test: nobody listens on it
        LockStoreException failure = assertThrows(LockStoreException.class, () -> LockClient.open(
                "postgres://app:s3cret@127.0.0.1:" + port + "/orders?connectTimeout=3s").close());
        String message = failure.getMessage();
        assertTrue(message.contains("postgres://app@127.0.0.1:" + port + "/orders"), message);
        assertTrue(message.contains("connectTimeout PT3S"), message);
        assertTrue(message.contains("refused"), message);
        assertFalse(message.contains("s3cret"), message);
        assertTrue(causedBy(failure, ConnectException.class), "the refused connection is the cause: " + failure);
    }

    @Test
    void theStartIsBoundByTheConnectTimeoutAloneNotByThePoolsRetries() {
        PostgresSettings settings = PostgresSettings.from(LockUri.parse(
                "postgres://app:s3cret@db:6432/orders?connectTimeout=3s&timeout=750ms"));
        // The one session opened at start: the driver's connect and login time-outs are the connect time-out.
        assertTrue(settings.jdbcUrl().contains("&connectTimeout=3&loginTimeout=3&"), settings.jdbcUrl());
        HikariConfig pool = PostgresLockProviderFactory.poolConfig(settings,
                PostgresLockProviderFactory.connectionProperties(settings), "test");
        // The pool does not check the server at start (it would retry each second until its own time-out) ...
        assertEquals(-1, pool.getInitializationFailTimeout());
        // ... and a call waits for a pooled session at most the URI's timeout.
        assertEquals(Duration.ofMillis(750).toMillis(), pool.getConnectionTimeout());
    }

    private static boolean causedBy(Throwable failure, Class<? extends Throwable> type) {
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            if (type.isInstance(cause)) {
                return true;
            }
        }
        return false;
    }
}
