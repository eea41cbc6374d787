package io.locksmith.redis;

/**
 * Rules R9.9 and R9.10 on Redis Sentinel with the Lettuce transport ({@code client=lettuce}) and the default
 * {@code WAIT} for one replica: the same partitions as {@link SentinelPartitionFaultTest} (Lettuce's master/replica
 * connection finds the promoted primary through the Sentinels' {@code +switch-master}).
 */
class SentinelPartitionLettuceFaultTest extends SentinelPartitionFaultTest {

    @Override
    protected String transport() {
        return "lettuce";
    }
}
