package io.locksmith.lockctl.doctor;

import io.locksmith.DistributedLock;
import io.locksmith.Lease;
import io.locksmith.LockClient;
import io.locksmith.LockInfo;
import io.locksmith.LockOptions;
import io.locksmith.Capability;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

/**
 * The one check that writes: acquires and releases a lock of a unique name through Locksmith, a few
 * times, and asks the store who holds it in between. It shows what an application will see: the round
 * trip of an acquire and a release, that {@code inspect} finds the holder, and what the store declares.
 */
final class ProbeCheck {

    static final String PROBE_PREFIX = "lockctl:doctor:probe:";
    private static final int ROUNDS = 5;

    private ProbeCheck() {
    }

    static List<Finding> run(String uri, Duration timeout) {
        List<Finding> findings = new ArrayList<>();
        String name = PROBE_PREFIX + UUID.randomUUID();
        try (LockClient client = LockClient.open(uri)) {
            findings.add(capabilities(client));
            DistributedLock lock = client.lock(name, LockOptions.builder().leaseTime(Duration.ofSeconds(10)).fixedLease().build());
            long[] acquire = new long[ROUNDS];
            long[] release = new long[ROUNDS];
            Finding inspectFinding = null;
            long previousToken = Long.MIN_VALUE;
            boolean increasing = true;
            for (int i = 0; i < ROUNDS; i++) {
                long start = System.nanoTime();
                Optional<Lease> maybeLease = lock.tryAcquire(timeout);
                acquire[i] = System.nanoTime() - start;
                if (maybeLease.isEmpty()) {
                    findings.add(Finding.fail("probe lock", "could not acquire the free lock '" + name + "' within "
                            + timeout.toMillis() + " ms", "check the store's load and the client's connection"));
                    return findings;
                }
                try (Lease lease = maybeLease.get()) {
                    increasing &= lease.fencingToken() > previousToken;
                    previousToken = lease.fencingToken();
                    if (i == 0) {
                        inspectFinding = inspect(client, name);
                    }
                    start = System.nanoTime();
                }
                release[i] = System.nanoTime() - start;
            }
            findings.add(latency(name, acquire, release));
            findings.add(inspectFinding);
            if (client.capabilities().contains(Capability.FENCING)) {
                findings.add(increasing ? Finding.ok("probe fencing", "tokens increased over " + ROUNDS + " holdings")
                        : Finding.fail("probe fencing", "a later holding got a token that was not greater",
                        "the backend breaks SPEC R5.1: run lockctl tck against it"));
            }
        }
        return findings;
    }

    private static Finding capabilities(LockClient client) {
        String detail = client.describe() + " declares " + client.capabilities();
        if (!client.capabilities().contains(Capability.FENCING)) {
            return Finding.warn("store capabilities", detail + ": no fencing tokens, so a resource cannot refuse a paused "
                    + "holder's late write", "use a store with fencing (redis://, zookeeper://, etcd://) where correctness matters");
        }
        return Finding.ok("store capabilities", detail);
    }

    private static Finding inspect(LockClient client, String name) {
        Optional<LockInfo> info = client.inspect(name);
        if (info.isEmpty()) {
            return Finding.fail("probe inspect", "the store says nobody holds '" + name + "' while this client holds it",
                    "the backend's inspect is broken: run lockctl tck against it");
        }
        if (!info.get().holder().clientId().equals(client.clientId())) {
            return Finding.fail("probe inspect", "the store names " + info.get().holder() + " as the holder, not this client",
                    "the backend's inspect is broken: run lockctl tck against it");
        }
        return Finding.ok("probe inspect", "the store names this client as the holder, token " + info.get().fencingToken()
                + info.get().timeToLive().map(ttl -> ", " + ttl.toMillis() + " ms left").orElse(""));
    }

    private static Finding latency(String name, long[] acquire, long[] release) {
        Arrays.sort(acquire);
        Arrays.sort(release);
        long acquireMedian = acquire[ROUNDS / 2];
        long releaseMedian = release[ROUNDS / 2];
        String detail = "acquire median " + Millis.of(acquireMedian) + ", release median " + Millis.of(releaseMedian)
                + " over " + ROUNDS + " rounds on '" + name + "' (the only write doctor makes; --read-only skips it)";
        if (acquireMedian + releaseMedian > 200_000_000L) {
            return Finding.warn("probe lock round trip", detail, "slow store or network: every lock pays this; "
                    + "keep leases far above it and check the store's load");
        }
        return Finding.ok("probe lock round trip", detail);
    }
}
