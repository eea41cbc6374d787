package io.locksmith.safety;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.locksmith.tck.WorkloadReport;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

/** The JSON report reads back with every figure and with outcomes that carry quotes, newlines and controls. */
class SafetyReportTest {

    @Test
    void theJsonReportReadsBackWithTheOutcomesAsWritten() throws Exception {
        WorkloadReport workload = new WorkloadReport("safety-json", 2, 3, 120, 4, 1, 0, 2, 7, 0, 1, 0,
                Duration.ofSeconds(5), null);
        String outcome = "holder \"b\" told\nafter\t2 s \u0001";
        SafetyReport report = new SafetyReport("redis \"single\"", "one node", Duration.ofMillis(5_123), workload,
                List.of(new FaultRecord(Fault.HOLDER_PAUSE, 400, 2_000, outcome, true)), 3, 0, 0, 0, List.of(workload));

        JsonNode json = new ObjectMapper().readTree(report.toJson());

        assertEquals("redis \"single\"", json.get("deployment").asText());
        assertEquals(5_123, json.get("durationMillis").asLong());
        assertFalse(json.get("safe").asBoolean());
        assertEquals(120, json.get("operations").asLong());
        assertEquals(2, json.get("staleWritesAccepted").asLong());
        assertEquals(3, json.get("staleHolderWrites").asLong());
        JsonNode fault = json.get("faults").get(0);
        assertEquals("holder_pause", fault.get("fault").asText());
        assertEquals(outcome, fault.get("outcome").asText());
        assertEquals(2_000, fault.get("durationMillis").asLong());
        assertEquals("safety-json", json.get("locks").get(0).get("lockName").asText());
        assertEquals(120, json.get("locks").get(0).get("operations").asLong());
    }
}
