package io.locksmith.spring;

import io.locksmith.Lease;
import io.locksmith.LockClient;
import io.locksmith.LockConfigurationException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;

import java.time.Duration;
import java.util.List;

/**
 * Fails the startup when the store's fencing tokens are not above what the resource accepted already (see
 * {@link FencingTokenFloor}): after a plain store switch every fenced write would be rejected.
 */
final class FencingFloorCheck implements SmartInitializingSingleton {

    /** The lock whose token is compared; nobody else takes it, and it is held for one round trip. */
    static final String PROBE = "locksmith:fencing-probe";
    private static final Logger LOG = LoggerFactory.getLogger("io.locksmith.spring");

    private final ObjectProvider<LockClient> client;
    private final ObjectProvider<FencingTokenFloor> floors;

    FencingFloorCheck(ObjectProvider<LockClient> client, ObjectProvider<FencingTokenFloor> floors) {
        this.client = client;
        this.floors = floors;
    }

    @Override
    public void afterSingletonsInstantiated() {
        List<FencingTokenFloor> all = floors.orderedStream().toList();
        LockClient locks = client.getIfAvailable();
        if (all.isEmpty() || locks == null) {
            return;
        }
        if (locks instanceof LazyLockClient lazy && !lazy.isConnected()) {
            LOG.warn("Locksmith cannot compare the fencing tokens of {} with the resource's floor: the store has not"
                    + " answered yet (locksmith.startup=lazy)", locks.describe());
            return;
        }
        long floor = all.stream().mapToLong(FencingTokenFloor::highestAcceptedToken).max().orElse(0);
        long token;
        try (Lease probe = locks.lock(PROBE).acquire(Duration.ofSeconds(5))) {
            token = probe.fencingToken();
        }
        if (token <= floor) {
            throw new LockConfigurationException("the fencing tokens of " + locks.describe() + " (now " + token
                    + ") are not above the highest token the resource has accepted (" + floor + "): every fenced"
                    + " write would be rejected. This happens after a store switch that changed only locksmith.uri"
                    + " (Redis tokens are about 10^15, etcd tokens the store revision). Switch stores with the"
                    + " migrate: URI, whose new-store tokens are offset above the old store's (docs/MIGRATION.md),"
                    + " or reset the resource's fence");
        }
        LOG.debug("fencing tokens of {} ({}) are above the resource's floor ({})", locks.describe(), token, floor);
    }
}
