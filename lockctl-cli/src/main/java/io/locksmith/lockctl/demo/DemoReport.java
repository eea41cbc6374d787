package io.locksmith.lockctl.demo;

import java.io.PrintWriter;
import java.util.List;
import java.util.function.ToIntFunction;

/**
 * The outcome of {@link OversellDemo#run}: the naive run, the Locksmith run, and what happened on the way.
 *
 * @param settings   what both runs used
 * @param store      the store of the Locksmith run, as its client describes it
 * @param fencing    whether that store gives fencing tokens
 * @param naive      the numbers of the naive-lock run
 * @param locksmith  the numbers of the Locksmith run
 */
public record DemoReport(DemoSettings settings, String store, boolean fencing, RunResult naive, RunResult locksmith) {

    private record Row(String label, ToIntFunction<RunResult> value) {
    }

    private static final List<Row> ROWS = List.of(
            new Row("orders", RunResult::orders),
            new Row("units sold", RunResult::unitsSold),
            new Row("final stock (below 0 = oversold)", RunResult::finalStock),
            new Row("holders joined by a second holder", RunResult::overlaps),
            new Row("  ...while sure they held the lock", RunResult::unawareOverlaps),
            new Row("releases that deleted another's lock", RunResult::foreignReleases),
            new Row("stale writes that reached the stock", RunResult::staleWritesApplied),
            new Row("stale writes rejected by the fence", RunResult::staleStatementsRejected),
            new Row("lease losses reported to the holder", RunResult::lossesReported),
            new Row("orders abandoned after a loss", RunResult::ordersAbortedOnLoss));

    /** Prints the side-by-side summary table. */
    public void printTable(PrintWriter out) {
        int width = ROWS.stream().mapToInt(row -> row.label().length()).max().orElse(10) + 2;
        out.printf("%-" + width + "s %12s %12s%n", "", "naive lock", "Locksmith");
        for (Row row : ROWS) {
            out.printf("%-" + width + "s %12d %12d%n", row.label(), row.value().applyAsInt(naive),
                    row.value().applyAsInt(locksmith));
        }
        out.printf("%-" + width + "s %10d ms %10d ms%n", "time", naive.millis(), locksmith.millis());
    }
}
