package io.locksmith.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ReportTest {

    private static Result row(Scenario scenario, String subject, boolean locksmith, boolean baseline, Map<String, Double> metrics) {
        return new Result(scenario, Store.REDIS, subject, locksmith, baseline, null, metrics, null);
    }

    private final Result raw = row(Scenario.UNCONTENDED, "Jedis", false, true, Map.of("p50_us", 100.0, "p99_us", 400.0,
            "ops_per_s", 9000.0));
    private final Result locksmith = row(Scenario.UNCONTENDED, "Locksmith over Jedis", true, false,
            Map.of("p50_us", 105.0, "p99_us", 300.0, "ops_per_s", 9500.0));
    private final Result spin = row(Scenario.CONTENDED, "spin", false, true,
            Map.of("acquisitions_per_s", 100.0, "handoff_p50_us", 10_000.0, "handoff_p99_us", 20_000.0));
    private final Result handoff = row(Scenario.CONTENDED, "Locksmith over Jedis", true, false,
            Map.of("acquisitions_per_s", 800.0, "handoff_p50_us", 60.0, "handoff_p99_us", 200.0));
    private final Result roundTrip = Result.roundTrip(Store.REDIS, RoundTrips.WRITE, Map.of("p50_us", 25.0, "p99_us", 50.0));
    private final Report report = new Report(List.of(roundTrip, raw, locksmith, spin, handoff),
            new LinkedHashMap<>(Map.of("cpus", "2")));

    @Test
    void ratiosDivideByTheBaselineOfTheSameStoreAndScenario() {
        assertEquals(1.05, report.ratio(locksmith, "p50_us"), 1e-9);
        assertEquals(0.006, report.ratio(handoff, "handoff_p50_us"), 1e-9);
        assertEquals(2.4, report.inRoundTrips(handoff), 1e-9);
        assertTrue(Double.isNaN(report.ratio(locksmith, "heap_mb")));
    }

    @Test
    void aRowComparedToAnotherDividesByThatRow() {
        Result redissonMinimal = row(Scenario.UNCONTENDED, Subjects.REDISSON_MINIMAL, false, false,
                Map.of("p50_us", 200.0, "p99_us", 800.0, "ops_per_s", 4000.0));
        Result overRedisson = new Result(Scenario.UNCONTENDED, Store.REDIS, "Locksmith over Redisson", true, false,
                Subjects.REDISSON_MINIMAL, Map.of("p50_us", 210.0, "p99_us", 700.0, "ops_per_s", 3900.0), null);
        Report withRedisson = new Report(List.of(raw, redissonMinimal, overRedisson), new LinkedHashMap<>());

        assertEquals(1.05, withRedisson.ratio(overRedisson, "p50_us"), 1e-9);
        assertTrue(withRedisson.targets().contains("raw minimal protocol (" + Subjects.REDISSON_MINIMAL + ")"));
    }

    @Test
    void targetsStateTheMeasuredFigureAndWhetherItIsMet() {
        String targets = report.targets();

        assertTrue(targets.contains("| uncontended p50 ≤ 1.10 × raw minimal protocol (Jedis) | Redis | Locksmith over Jedis | 1.05× | yes |"),
                targets);
        assertTrue(targets.contains("| contended handoff p50 ≤ 2 store (write) round trips | Redis | Locksmith over Jedis | 2.40 RTT | **no** |"),
                targets);
    }

    @Test
    void markdownAndJsonCarryEveryRowAndTheFailures() throws Exception {
        Result missing = Result.failed(Scenario.RENEWAL, new Subjects.Entry(
                new LocksmithSubject("Locksmith over jetcd", Store.ETCD, "etcd://x"), false), "backend \"etcd\" missing");
        Report withFailure = new Report(List.of(raw, locksmith, missing), new LinkedHashMap<>());

        String markdown = withFailure.markdown();
        assertTrue(markdown.contains("| Jedis *(baseline)* | 100 | 1.00 | 400 | 1.00 | 9,000 | 1.00 |"), markdown);
        assertTrue(markdown.contains("| **Locksmith over Jedis** | 105 | 1.05 | 300 | 0.75 | 9,500 | 1.06 |"), markdown);
        assertTrue(markdown.contains("- etcd, renewal, Locksmith over jetcd: backend \"etcd\" missing"), markdown);
        String json = withFailure.json();
        JsonNode rows = new ObjectMapper().readTree(json).get("results");
        assertEquals(3, rows.size(), json);
        assertEquals("backend \"etcd\" missing", rows.get(2).get("failure").asText(), json);
        assertTrue(json.contains("\"p50_us\" : 1.0500"), json);
        assertEquals(1.05, rows.get(1).get("ratios").get("p50_us").doubleValue(), 1e-9, json);
    }

    @Test
    void severalRunsShowMediansWithRangesAndTakeRatiosWithinEachRun() {
        Result slowRaw = row(Scenario.UNCONTENDED, "Jedis", false, true, Map.of("p50_us", 300.0, "p99_us", 900.0,
                "ops_per_s", 3000.0));
        Result slowLocksmith = row(Scenario.UNCONTENDED, "Locksmith over Jedis", true, false,
                Map.of("p50_us", 330.0, "p99_us", 900.0, "ops_per_s", 2900.0));
        Result fastRaw = row(Scenario.UNCONTENDED, "Jedis", false, true, Map.of("p50_us", 50.0, "p99_us", 200.0,
                "ops_per_s", 15000.0));
        Result fastLocksmith = row(Scenario.UNCONTENDED, "Locksmith over Jedis", true, false,
                Map.of("p50_us", 60.0, "p99_us", 250.0, "ops_per_s", 14000.0));
        Report runs = Report.of(List.of(List.of(raw, locksmith), List.of(slowRaw, slowLocksmith),
                List.of(fastRaw, fastLocksmith)), new LinkedHashMap<>());

        // Ratios 1.05, 1.10, 1.20 within the runs: their median, not the ratio of the medians (105 / 100).
        Result median = runs.find(Scenario.UNCONTENDED, Store.REDIS, "Locksmith over Jedis").orElseThrow();
        assertEquals(105.0, median.metric("p50_us"), 1e-9);
        assertEquals(1.10, runs.ratio(median, "p50_us"), 1e-9);
        assertEquals(3, runs.runCount());
        String markdown = runs.markdown();
        assertTrue(markdown.contains("| **Locksmith over Jedis** | 105 (60.0–330) | 1.10 (1.05–1.20) |"), markdown);
        assertTrue(runs.targets().contains("| Locksmith over Jedis | 1.10 (1.05–1.20)× | yes |"), runs.targets());
        assertEquals(2.5, Report.median(new double[] {4, 1, 2, 3}), 1e-9);
        assertTrue(Double.isNaN(Report.median(new double[] {Double.NaN})));
    }

    @Test
    void theResultsReplaceTheMarkedSectionOfADocument() {
        String document = "# Performance\n\nintro\n\n" + Report.DOC_START + "\nold results\n" + Report.DOC_END + "\n\nafter\n";

        String updated = report.intoDocument(document);

        assertTrue(updated.startsWith("# Performance\n\nintro\n\n" + Report.DOC_START + "\n### Environment"), updated);
        assertTrue(updated.endsWith(Report.DOC_END + "\n\nafter\n"), updated);
        assertTrue(!updated.contains("old results"), updated);
    }
}
