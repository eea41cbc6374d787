package io.locksmith.bench;

import org.junit.jupiter.api.Test;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class GoalsTest {

    private static final String SPRING = "Spring Integration JdbcLockRegistry (polls every 100 ms)";

    private static Result row(Scenario scenario, Store store, String subject, boolean locksmith, boolean baseline,
                              Map<String, Double> metrics) {
        return new Result(scenario, store, subject, locksmith, baseline, null, metrics, null);
    }

    private static Report single(Result... results) {
        return new Report(List.of(results), new LinkedHashMap<>());
    }

    private final Report loopback = single(
            Result.roundTrip(Store.REDIS, RoundTrips.WRITE, Map.of("p50_us", 20.0, "p99_us", 40.0)),
            row(Scenario.UNCONTENDED, Store.REDIS, "minimal", false, true, Map.of("p50_us", 50.0,
                    "server_us_per_op", 7.0)),
            row(Scenario.UNCONTENDED, Store.REDIS, "Locksmith over Jedis", true, false, Map.of("p50_us", 60.0,
                    "server_us_per_op", 21.0)),
            row(Scenario.CONTENDED, Store.REDIS, "spin", false, true, Map.of("acquisitions_per_s", 100.0,
                    "handoff_p50_us", 9000.0)),
            row(Scenario.CONTENDED, Store.REDIS, "Locksmith over Jedis", true, false, Map.of("acquisitions_per_s",
                    900.0, "handoff_p50_us", 40.0)),
            row(Scenario.CONTENDED, Store.ETCD, "jetcd", false, true, Map.of("acquisitions_per_s", 80.0)),
            row(Scenario.CONTENDED, Store.ETCD, "Locksmith over jetcd", true, false, Map.of("acquisitions_per_s", 320.0)),
            row(Scenario.MANY_NAMES, Store.REDIS, "minimal", false, true, Map.of("ops_per_s", 10_000.0)),
            row(Scenario.MANY_NAMES, Store.REDIS, "Locksmith over Jedis", true, false, Map.of("ops_per_s", 9_500.0)));

    private static List<Result> postgresRun(double locksmithRate, double springRate, double toAnother) {
        return List.of(
                row(Scenario.CONTENDED, Store.POSTGRES, "row lock", false, true, Map.of("acquisitions_per_s", 1000.0)),
                row(Scenario.CONTENDED, Store.POSTGRES, SPRING, false, false, Map.of("acquisitions_per_s", springRate,
                        "to_another_thread_pct", 2.0)),
                row(Scenario.CONTENDED, Store.POSTGRES, "Locksmith over PostgreSQL", true, false,
                        Map.of("acquisitions_per_s", locksmithRate, "to_another_thread_pct", toAnother)));
    }

    private final Report network = single(
            Result.roundTrip(Store.ZOOKEEPER, RoundTrips.WRITE, Map.of("p50_us", 400.0, "p99_us", 900.0)),
            row(Scenario.UNCONTENDED, Store.ZOOKEEPER, "Curator", false, true, Map.of("p50_us", 1000.0)),
            row(Scenario.UNCONTENDED, Store.ZOOKEEPER, "Locksmith over Curator", true, false, Map.of("p50_us", 700.0)),
            row(Scenario.CONTENDED, Store.ZOOKEEPER, "Curator", false, true, Map.of("handoff_p50_us", 1000.0)),
            row(Scenario.CONTENDED, Store.ZOOKEEPER, "Locksmith over Curator", true, false,
                    Map.of("handoff_p50_us", 800.0)));

    @Test
    void everyGoalIsJudgedByItsOwnRatioWithinTheRuns() {
        // Three PostgreSQL runs: Locksmith ÷ Spring Integration 0.5, 2.0, 1.5 within the runs; the median 1.5, not
        // the ratio of the medians (1,200 / 1,000).
        Report postgres = Report.of(List.of(postgresRun(500, 1000, 100), postgresRun(1200, 600, 99),
                postgresRun(1500, 1000, 95)), new LinkedHashMap<>());

        String table = Goals.table(loopback, postgres, network);

        assertTrue(table.contains("| 1 | server time per acquire + release ≤ 2 × the minimal lock's, per transport"
                + " (INFO commandstats) | Redis | Locksmith over Jedis | 3.00× (21.0 µs against 7.00 µs, minimal) | **no** |"),
                table);
        assertTrue(table.contains("| 2 | uncontended p50 ≤ 1.25 × the minimal lock (loopback) | Redis | Locksmith over"
                + " Jedis | 1.20× (60.0 µs) | yes |"), table);
        assertTrue(table.contains("| 2 | contended handoff p50 ≤ 2.5 × one raw acquire (a SET round trip) | Redis |"
                + " Locksmith over Jedis | 2.00× (40.0 µs) | yes |"), table);
        assertTrue(table.contains("| Locksmith over PostgreSQL | 99.0 (95.0–100) % | yes |"), table);
        assertTrue(table.contains("| Locksmith over PostgreSQL | 1.50 (0.50–2.00)× (1,200 (500–1,500)/s; Spring"
                + " Integration 1,000 (600–1,000)/s, 2.00 (2.00–2.00) % to another thread) | yes |"), table);
        assertTrue(table.contains("| 4 | contended acquisitions/s ≥ 10 × jetcd Lock's (loopback) | etcd | Locksmith over"
                + " jetcd | 4.00× (320/s) | **no** |"), table);
        assertTrue(table.contains("| 5 | 0.1 ms network: uncontended p50 ≤ 1.05 × Curator | ZooKeeper | Locksmith over"
                + " Curator | 0.70× (700 µs) | yes |"), table);
        assertTrue(table.contains("| 5 | 0.1 ms network: contended handoff p50 ≤ 1.5 round trips | ZooKeeper |"
                + " Locksmith over Curator | 2.00 round trips (800 µs) | **no** |"), table);
        assertTrue(table.contains("| 6 | many names ops/s ≥ 0.9 × the minimal lock's | Redis | Locksmith over Jedis |"
                + " 0.95× (9,500/s) | yes |"), table);
    }

    @Test
    void aGoalWithoutItsFigureIsNeitherMetNorMissedAndTheFailureIsListed() {
        Result failed = Result.failed(Scenario.CONTENDED, new Subjects.Entry(new LocksmithSubject(
                "Locksmith over PostgreSQL", Store.POSTGRES, "postgres://x"), false), "server gone");
        Report postgres = single(row(Scenario.CONTENDED, Store.POSTGRES, "Locksmith over PostgreSQL", true, false,
                Map.of("acquisitions_per_s", 900.0)), failed);

        String table = Goals.table(loopback, postgres, network);

        assertTrue(table.contains("| Locksmith over PostgreSQL | – % | ? |"), table);
        assertTrue(table.contains("- PostgreSQL, contended, Locksmith over PostgreSQL: server gone"), table);
    }

    @Test
    void theTableReplacesTheGoalsSectionAndADocumentWithoutItIsRefusedBeforeAnythingRuns() {
        String document = "intro\n" + Goals.DOC_START + "\nold\n" + Goals.DOC_END + "\nafter\n";

        assertEquals("intro\n" + Goals.DOC_START + "\nnew\n" + Goals.DOC_END + "\nafter\n",
                Goals.intoDocument(document, "new\n"));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> Goals.intoDocument("no markers", "new"));
        assertTrue(e.getMessage().contains("issue 35 goals"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> Goals.main(new String[] {"--runs"}));
        assertThrows(IllegalArgumentException.class, () -> Goals.main(new String[] {"--stores", "redis"}));
    }
}
