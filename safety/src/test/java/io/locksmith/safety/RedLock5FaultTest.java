package io.locksmith.safety;

/** The fault rules on RedLock over five primaries ({@link RedLockFaultTck}). */
class RedLock5FaultTest extends RedLockFaultTck {

    RedLock5FaultTest() {
        super(5);
    }
}
