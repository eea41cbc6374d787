package io.locksmith.safety;

/** The fault rules on RedLock over three primaries ({@link RedLockFaultTck}). */
class RedLockFaultTest extends RedLockFaultTck {

    RedLockFaultTest() {
        super(3);
    }
}
