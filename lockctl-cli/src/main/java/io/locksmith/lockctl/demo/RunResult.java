package io.locksmith.lockctl.demo;

/**
 * The numbers of one run of the demo.
 *
 * @param lock                    which lock guarded the run: {@code naive lock} or {@code Locksmith}
 * @param orders                  orders that arrived
 * @param unitsSold               stock deductions the table applied
 * @param soldOut                 orders turned away because the stock read 0 or less
 * @param initialStock            units in stock at the start
 * @param finalStock              units in stock at the end: below zero means oversold
 * @param overlaps                holders that another holder joined in the critical section
 * @param unawareOverlaps         of those, the ones that still believed they held the lock when joined
 * @param foreignReleases         releases that deleted another holder's lock
 * @param staleWritesApplied      writes that reached the stock after a newer holder had touched it
 * @param staleStatementsRejected statements the fence refused because a newer holder had touched the stock
 * @param lossesReported          lease losses the lock reported to their holders
 * @param ordersAbortedOnLoss     orders abandoned because the holder learned it had lost its lease
 * @param stalls                  slow calls and pauses that outlasted the lease
 * @param millis                  wall time of the run
 */
public record RunResult(String lock, int orders, int unitsSold, int soldOut, int initialStock, int finalStock,
                        int overlaps, int unawareOverlaps, int foreignReleases, int staleWritesApplied,
                        int staleStatementsRejected, int lossesReported, int ordersAbortedOnLoss, int stalls,
                        long millis) {

    /** Whether more units were sold than there were in stock. */
    public boolean oversold() {
        return finalStock < 0 || unitsSold > initialStock;
    }

    /** Whether the run kept the stock right: no oversell and no stale write applied. */
    public boolean safe() {
        return !oversold() && staleWritesApplied == 0;
    }
}
