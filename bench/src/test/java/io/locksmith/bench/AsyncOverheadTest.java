package io.locksmith.bench;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The async-overhead scenario end to end on the in-JVM store: both APIs measured, the async row divided by the blocking. */
class AsyncOverheadTest {

    @Test
    void theAsyncRowIsMeasuredBesideTheBlockingOneAndDividedByIt() throws Exception {
        BenchOptions options = BenchOptions.parse("--stores", "mem", "--scenarios", "async-overhead", "--runs", "1",
                "--warmup", "50ms", "--measure", "200ms");

        Report report = BenchMain.run(options);

        Result blocking = report.find(Scenario.ASYNC_OVERHEAD, Store.MEM, "Locksmith blocking: tryAcquire(wait), close()")
                .orElseThrow();
        Result async = report.find(Scenario.ASYNC_OVERHEAD, Store.MEM,
                "Locksmith async: tryAcquireAsync(wait), closeAsync()").orElseThrow();
        assertTrue(async.metric("ops") > 0, async.toString());
        assertTrue(async.metric("acquisitions") > 0, async.toString());
        assertEquals(0.0, async.metric("exclusion_violations"), async.toString());
        assertEquals(async.metric("p50_us") / blocking.metric("p50_us"), report.ratio(async, "p50_us"), 1e-9);
        String markdown = report.markdown();
        assertTrue(markdown.contains("## Async overhead"), markdown);
        assertFalse(markdown.contains("## Not measured"), markdown);
    }
}
