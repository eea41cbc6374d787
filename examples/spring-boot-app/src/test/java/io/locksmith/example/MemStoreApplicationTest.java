package io.locksmith.example;

import org.junit.jupiter.api.Test;

/** The example application on its default {@code application.yml}: the in-JVM store {@code mem://orders}. */
class MemStoreApplicationTest {

    @Test
    void shipsOrdersUnderTheLockAndExposesMetricsAndHealth() throws Exception {
        OrderApplicationScenario.runAndCheck("mem");
    }
}
