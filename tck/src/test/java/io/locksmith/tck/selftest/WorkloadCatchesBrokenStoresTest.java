package io.locksmith.tck.selftest;

import io.locksmith.LockClient;
import io.locksmith.LockOptions;
import io.locksmith.spi.ProviderClientBuilder;
import io.locksmith.tck.ContentionWorkload;
import io.locksmith.tck.WorkloadReport;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.UUID;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The contention workload's checker, seen to fail on stores that break exclusion or fencing. */
class WorkloadCatchesBrokenStoresTest {

    private static WorkloadReport runOn(Flaw flaw) {
        ToyStore store = new ToyStore(EnumSet.of(flaw), false);
        String scheme = "broken-workload";
        List<LockClient> clients = new ArrayList<>();
        try {
            for (int i = 0; i < 3; i++) {
                clients.add(ProviderClientBuilder.create().uri(scheme + "://").factory(new ToyProviderFactory(scheme, store)).build());
            }
            return ContentionWorkload.on(clients, "stock-" + UUID.randomUUID())
                    .threadsPerClient(3)
                    .operations(60)
                    .holdFor(Duration.ofMillis(2))
                    .acquireWait(Duration.ofSeconds(10))
                    .lockOptions(LockOptions.builder().leaseTime(Duration.ofSeconds(30)).build())
                    .run();
        } finally {
            clients.forEach(LockClient::close);
        }
    }

    @Test
    void aNonAtomicAcquireShowsOverlaps() {
        WorkloadReport report = runOn(Flaw.CHECK_THEN_SET);
        assertTrue(report.overlaps() > 0, report::toString);
        assertFalse(report.isSafe());
        assertTrue(report.toString().contains("Verdict: UNSAFE"), report::toString);
    }

    @Test
    void tokensThatRestartShowStaleWritesAndMonotonicityViolations() {
        WorkloadReport report = runOn(Flaw.TOKEN_RESTARTS_PER_HOLDING);
        assertEquals(0, report.overlaps(), report::toString);
        assertTrue(report.staleWritesAccepted() > 0, report::toString);
        assertTrue(report.tokenMonotonicityViolations() > 0, report::toString);
    }
}
