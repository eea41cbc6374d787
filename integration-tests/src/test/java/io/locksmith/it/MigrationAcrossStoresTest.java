package io.locksmith.it;

import io.locksmith.LockClient;
import io.locksmith.LockConfigurationException;
import io.locksmith.migrate.FleetMember;
import io.locksmith.migrate.Migration;
import io.locksmith.migrate.MigrationPhase;
import io.locksmith.safety.Deployment;
import io.locksmith.safety.Deployments;
import io.locksmith.tck.ContentionWorkload;
import io.locksmith.tck.FencedRegister;
import io.locksmith.tck.WorkloadReport;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import static io.locksmith.migrate.MigrationPhase.DUAL;
import static io.locksmith.migrate.MigrationPhase.FROM;
import static io.locksmith.migrate.MigrationPhase.TO;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A fleet moves from one real store to another under contention: clients in adjacent phases exclude each
 * other and their fencing tokens keep increasing across the switch (one fenced register sees every phase),
 * and the phase guard refuses a client that would skip a phase.
 */
class MigrationAcrossStoresTest {

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource({"redis-single, etcd-single", "redis-single, zookeeper-single", "redis-single, postgres-single"})
    void adjacentPhasesExcludeEachOtherAndTokensKeepIncreasing(String from, String to) {
        try (Deployment oldStore = Deployments.start(from); Deployment newStore = Deployments.start(to)) {
            String name = "stock:" + UUID.randomUUID();
            FencedRegister register = new FencedRegister();
            List<LockClient> step1 = open(oldStore, newStore, FROM, DUAL);
            try {
                WorkloadReport report = contend(step1, name, register);
                assertTrue(report.isSafe(), "from + dual: " + report);
            } finally {
                step1.forEach(LockClient::close);
            }
            List<LockClient> step2 = open(oldStore, newStore, DUAL, TO);
            try {
                WorkloadReport report = contend(step2, name, register);
                assertTrue(report.isSafe(), "dual + to: " + report);
                assertEquals(0, register.staleWritesAccepted(), "a stale write was accepted across the phases");
            } finally {
                step2.forEach(LockClient::close);
            }
        }
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource({"redis-single, etcd-single", "redis-single, postgres-single"})
    void theGuardRefusesAClientThatWouldSkipAPhase(String from, String to) {
        try (Deployment oldStore = Deployments.start(from); Deployment newStore = Deployments.start(to);
             LockClient stillOld = LockClient.open(MigrationUris.of(oldStore.uri(), newStore.uri(), FROM))) {
            LockConfigurationException refused = assertThrows(LockConfigurationException.class,
                    () -> LockClient.open(MigrationUris.of(oldStore.uri(), newStore.uri(), TO)).close());
            assertTrue(refused.getMessage().contains(stillOld.clientId()), refused.getMessage());
            List<FleetMember> fleet = Migration.fleet(MigrationUris.of(oldStore.uri(), newStore.uri(), FROM));
            assertEquals(1, fleet.size(), fleet.toString());
            assertEquals(FROM, fleet.get(0).phase());
        }
    }

    private static List<LockClient> open(Deployment oldStore, Deployment newStore, MigrationPhase... phases) {
        List<LockClient> clients = new ArrayList<>();
        for (MigrationPhase phase : phases) {
            for (int i = 0; i < 2; i++) {
                clients.add(LockClient.open(MigrationUris.of(oldStore.uri(), newStore.uri(), phase)));
            }
        }
        return clients;
    }

    private static WorkloadReport contend(List<LockClient> clients, String name, FencedRegister register) {
        WorkloadReport report = ContentionWorkload.on(clients, name)
                .threadsPerClient(2)
                .operations(60)
                .acquireWait(Duration.ofSeconds(20))
                .maxDuration(Duration.ofSeconds(60))
                .register(register)
                .run();
        assertTrue(report.operations() > 0, report.toString());
        System.out.println(report);
        return report;
    }
}
