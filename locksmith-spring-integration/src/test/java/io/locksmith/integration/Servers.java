package io.locksmith.integration;

/** Store servers of the test harness as the tests' {@link LockRegistryBehaviourTest.Server}. */
final class Servers {

    private Servers() {
    }

    /** {@code process}, closed with the server, whose clients connect to {@code uri}. */
    static LockRegistryBehaviourTest.Server of(AutoCloseable process, String uri) {
        return new LockRegistryBehaviourTest.Server() {
            @Override
            public String uri() {
                return uri;
            }

            @Override
            public void close() {
                try {
                    process.close();
                } catch (Exception e) {
                    throw new IllegalStateException("could not stop the server of " + uri, e);
                }
            }
        };
    }
}
