package io.locksmith;

import io.locksmith.mem.MemLockProviderFactory;
import io.locksmith.spi.ProviderClientBuilder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.time.Duration;
import java.util.UUID;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** Bad input gets a clear error that names the problem (SPEC R8.2), and documented no-ops stay no-ops. */
class InputValidationTest {

    private static String unique() {
        return "validation-" + UUID.randomUUID();
    }

    private static <T extends Throwable> T assertMessage(Class<T> type, Executable call, String... fragments) {
        T thrown = assertThrows(type, call);
        for (String fragment : fragments) {
            assertTrue(thrown.getMessage() != null && thrown.getMessage().contains(fragment),
                    "message should contain '" + fragment + "': " + thrown.getMessage());
        }
        return thrown;
    }

    // ------------------------------------------------------------------ URIs

    @Test
    void unknownSchemeListsTheAvailableSchemes() {
        assertMessage(LockConfigurationException.class, () -> LockClient.open("nosuchstore://h:1"),
                "unknown lock store scheme 'nosuchstore'", "available schemes", "mem");
    }

    /** lock-api's tests have no backend on the class path: the message names the artifact to add. */
    @Test
    void aBackendSchemeWithoutItsJarNamesTheArtifact() {
        assertMessage(LockConfigurationException.class, () -> LockClient.open("etcds://h:2379"),
                "unknown lock store scheme 'etcds'", "io.locksmith:locksmith-etcd");
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "   ", "no-scheme-here", "1mem://x", "mem://a,,b", "mem://x?%zz=1", "mem://x?=v",
            "mem://x?lease=1s&lease=2s"})
    void malformedUrisAreRejectedNamingTheProblem(String uri) {
        LockConfigurationException thrown = assertThrows(LockConfigurationException.class, () -> LockClient.open(uri));
        assertFalse(thrown.getMessage().isBlank());
        assertTrue(uri.isBlank() ? thrown.getMessage().contains("empty") : thrown.getMessage().contains(uri.strip())
                        || thrown.getMessage().contains("'" + uri.strip().split("\\?")[0]),
                "the message should quote the URI: " + thrown.getMessage());
    }

    @Test
    void badParameterValuesNameTheParameter() {
        assertMessage(LockConfigurationException.class, () -> LockClient.open("mem://x?lease=soon"), "lease", "soon");
        assertMessage(LockConfigurationException.class, () -> LockClient.open("mem://x?lease=0s"), "lease", "positive");
        assertMessage(LockConfigurationException.class, () -> LockClient.open("mem://x?lease=-5s"), "lease");
        assertMessage(LockConfigurationException.class, () -> LockClient.open("mem://x?renew=maybe"), "renew", "maybe");
        assertMessage(LockConfigurationException.class, () -> LockClient.open("mem://x?lease=5m&maxHold=1m"), "maxHold");
        assertMessage(LockConfigurationException.class, () -> LockClient.open("mem://a,b"), "several stores");
        assertMessage(LockConfigurationException.class, () -> LockClient.open("mem://x/path"), "path");
    }

    @Test
    void unknownParametersAreNamedWithTheKnownOnes() {
        assertMessage(LockConfigurationException.class, () -> LockClient.open("mem://x?leese=5s&renew=true"),
                "unknown parameter", "leese", "known", "lease");
    }

    @Test
    void aPasswordIsNeverShownInAnError() {
        LockConfigurationException thrown = assertThrows(LockConfigurationException.class,
                () -> LockClient.open("nosuchstore://user:s3cret@h:1?password=s3cret"));
        assertFalse(thrown.getMessage().contains("s3cret"), thrown.getMessage());
    }

    @Test
    void aBuilderWithoutUriOrWithAMismatchedFactoryIsRejected() {
        assertMessage(LockConfigurationException.class, () -> LockClient.builder().build(), "no lock store URI");
        assertMessage(LockConfigurationException.class,
                () -> ProviderClientBuilder.create().uri("other://").factory(new MemLockProviderFactory()).build(), "other", "mem");
        assertThrows(NullPointerException.class, () -> LockClient.builder().uri(null));
        assertThrows(NullPointerException.class, () -> LockClient.open(null));
        assertMessage(IllegalArgumentException.class, () -> LockClient.builder().clientId("has space"), "clientId");
        assertMessage(IllegalArgumentException.class, () -> LockClient.builder().maxPollInterval(Duration.ZERO),
                "maxPollInterval");
    }

    @Test
    void fromEnvironmentWithNothingSetNamesAllThreeSources() {
        assumeTrue(System.getenv(LockClient.ENV_VARIABLE) == null, "LOCKSMITH_URI is set in this environment");
        String saved = System.clearProperty(LockClient.SYSTEM_PROPERTY);
        try {
            assertMessage(LockConfigurationException.class, LockClient::fromEnvironment,
                    LockClient.SYSTEM_PROPERTY, LockClient.ENV_VARIABLE, LockClient.PROPERTIES_RESOURCE);
        } finally {
            if (saved != null) {
                System.setProperty(LockClient.SYSTEM_PROPERTY, saved);
            }
        }
    }

    @Test
    void fromEnvironmentReadsTheSystemProperty() {
        String saved = System.setProperty(LockClient.SYSTEM_PROPERTY, "mem://" + unique());
        try (LockClient client = LockClient.fromEnvironment()) {
            assertTrue(client.describe().startsWith("mem://validation-"), client.describe());
        } finally {
            if (saved == null) {
                System.clearProperty(LockClient.SYSTEM_PROPERTY);
            } else {
                System.setProperty(LockClient.SYSTEM_PROPERTY, saved);
            }
        }
    }

    @Test
    void environmentUriIsWhatFromEnvironmentWouldOpen() {
        assumeTrue(System.getenv(LockClient.ENV_VARIABLE) == null, "LOCKSMITH_URI is set in this environment");
        String uri = "mem://" + unique();
        String saved = System.setProperty(LockClient.SYSTEM_PROPERTY, uri);
        try {
            assertEquals(java.util.Optional.of(uri), LockClient.environmentUri());
            System.clearProperty(LockClient.SYSTEM_PROPERTY);
            assertEquals(java.util.Optional.empty(), LockClient.environmentUri(), "nothing set: no URI, no error");
        } finally {
            if (saved == null) {
                System.clearProperty(LockClient.SYSTEM_PROPERTY);
            } else {
                System.setProperty(LockClient.SYSTEM_PROPERTY, saved);
            }
        }
    }

    // ------------------------------------------------------------------ names

    @Test
    void badNamesAreRejectedNamingTheProblem() {
        try (LockClient client = LockClient.open("mem://" + unique())) {
            assertMessage(NullPointerException.class, () -> client.lock(null), "lock name cannot be null");
            assertMessage(IllegalArgumentException.class, () -> client.lock(""), "empty");
            assertMessage(IllegalArgumentException.class, () -> client.lock(" \t "), "blank");
            assertMessage(IllegalArgumentException.class, () -> client.lock("x".repeat(513)), "513", "512");
            assertMessage(IllegalArgumentException.class, () -> client.lock("a\u0007b"), "control character", "U+0007");
            assertMessage(IllegalArgumentException.class, () -> client.lock("a\nb"), "U+000A");
            assertMessage(NullPointerException.class, () -> client.inspect(null), "lock name cannot be null");
            assertMessage(IllegalArgumentException.class, () -> client.inspect(""), "empty");
            assertMessage(NullPointerException.class, () -> client.lock("ok", null), "options");
            assertDoesNotThrow(() -> client.lock("x".repeat(512)).tryAcquire().orElseThrow().close());
            assertDoesNotThrow(() -> client.lock("ключ/名前 *?{}").tryAcquire().orElseThrow().close());
            assertEquals(0, client.heldCount());
        }
    }

    // ------------------------------------------------------------------ durations

    @Test
    void zeroAndNegativeDurationsAreRejected() {
        assertMessage(IllegalArgumentException.class, () -> LockOptions.builder().leaseTime(Duration.ZERO), "leaseTime");
        assertMessage(IllegalArgumentException.class, () -> LockOptions.builder().leaseTime(Duration.ofSeconds(-1)),
                "leaseTime", "positive");
        assertMessage(IllegalArgumentException.class, () -> LockOptions.builder().maxHold(Duration.ZERO), "maxHold");
        assertMessage(IllegalArgumentException.class, () -> LockOptions.builder().maxHold(Duration.ofMillis(-1)), "maxHold");
        assertMessage(NullPointerException.class, () -> LockOptions.builder().leaseTime(null), "leaseTime");
        assertMessage(IllegalArgumentException.class, () -> LockOptions.builder().leaseTime(Duration.ofSeconds(10))
                .maxHold(Duration.ofSeconds(5)).build(), "maxHold", "leaseTime");
        try (LockClient client = LockClient.open("mem://" + unique())) {
            DistributedLock lock = client.lock(unique());
            assertMessage(IllegalArgumentException.class, () -> lock.acquire(Duration.ofMillis(-1)), "maxWait", lock.name());
            assertMessage(IllegalArgumentException.class, () -> lock.tryAcquire(Duration.ofNanos(-1)), "maxWait");
            assertMessage(NullPointerException.class, () -> lock.acquire(null), "maxWait");
            assertMessage(NullPointerException.class, () -> lock.tryAcquire(null), "maxWait");
            assertTrue(client.inspect(lock.name()).isEmpty(), "a rejected acquire left the lock taken");
            // Zero is not negative: one attempt, no wait.
            try (Lease lease = lock.acquire(Duration.ZERO)) {
                assertTrue(lease.isHeld());
            }
        }
    }

    @Test
    void aZeroWaitOnAHeldLockTimesOutAtOnce() {
        String store = "mem://" + unique();
        try (LockClient a = LockClient.open(store); LockClient b = LockClient.open(store)) {
            String name = unique();
            try (Lease held = a.lock(name).acquire(Duration.ZERO)) {
                LockTimeoutException timeout = assertThrows(LockTimeoutException.class, () -> b.lock(name).acquire(Duration.ZERO));
                assertEquals(name, timeout.lockName());
                assertEquals(Duration.ZERO, timeout.waited());
                assertTrue(held.isHeld());
            }
        }
    }

    // ------------------------------------------------------------------ leases and closed clients

    @Test
    void closingALeaseAgainIsANoOp() {
        try (LockClient client = LockClient.open("mem://" + unique())) {
            Lease lease = client.lock(unique()).acquire(Duration.ZERO);
            lease.close();
            assertDoesNotThrow(lease::close);
            assertFalse(lease.isHeld());
            assertMessage(IllegalMonitorStateException.class, lease::ensureHeld, "already closed");
            assertEquals(0, client.heldCount());
        }
    }

    @Test
    void closingALostLeaseIsANoOp() {
        try (LockClient client = LockClient.open("mem://" + unique())) {
            Lease lease = client.lock(unique(), LockOptions.builder().leaseTime(Duration.ofSeconds(30)).build())
                    .acquire(Duration.ZERO);
            client.close();
            assertFalse(lease.isHeld());
            assertDoesNotThrow(lease::close);
            assertDoesNotThrow(lease::close);
        }
    }

    @Test
    void aClosedClientRefusesWorkAndClosesAgainQuietly() {
        LockClient client = LockClient.open("mem://" + unique());
        DistributedLock lock = client.lock(unique());
        client.close();
        assertMessage(IllegalStateException.class, () -> client.lock(unique()), "closed", client.clientId());
        assertMessage(IllegalStateException.class, () -> client.inspect(unique()), "closed");
        assertMessage(IllegalStateException.class, lock::tryAcquire, "closed");
        assertMessage(IllegalStateException.class, () -> lock.acquire(Duration.ofSeconds(1)), "closed");
        assertMessage(IllegalStateException.class, lock::inspect, "closed");
        assertDoesNotThrow(client::close);
    }
}
