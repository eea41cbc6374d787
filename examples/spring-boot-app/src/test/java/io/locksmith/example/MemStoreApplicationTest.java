package io.locksmith.example;

import org.junit.jupiter.api.Test;

import java.util.UUID;

/** The example application on the default {@code application.yml}: the in-JVM store. */
class MemStoreApplicationTest {

    @Test
    void shipsOrdersUnderTheLockAndExposesMetricsAndHealth() throws Exception {
        // A fresh mem store so that tokens and holders of other tests in this JVM cannot leak in.
        OrderApplicationScenario.runAndCheck("mem", "--locksmith.uri=mem://orders-" + UUID.randomUUID());
    }
}
