/**
 * The Locksmith compatibility kit: every rule of the specification as a JUnit 5 test to extend, the fault
 * rules, and the tools they use.
 */
module io.locksmith.tck {
    requires transitive io.locksmith;
    requires transitive org.junit.jupiter.api;
    requires org.junit.platform.launcher;
    requires org.opentest4j;
    requires awaitility;
    requires org.slf4j; // R8.8 sets a trace id in the MDC

    // The kit reads a store's minimum lease from its provider to pick its timing scale.
    uses io.locksmith.spi.LockProviderFactory;

    exports io.locksmith.tck;
    exports io.locksmith.tck.fault;
    exports io.locksmith.tck.kits;

    // JUnit runs the kit's test methods, declared here, reflectively.
    opens io.locksmith.tck to org.junit.platform.commons;
    opens io.locksmith.tck.fault to org.junit.platform.commons;
    opens io.locksmith.tck.kits to org.junit.platform.commons;
}
