package io.locksmith.tck;

import java.time.Duration;

/**
 * What a {@link ContentionWorkload} run saw. {@link #toString()} is a one-paragraph report for logs and
 * assertion messages.
 *
 * @param lockName                     the contended lock
 * @param clients                      clients taking part
 * @param threadsPerClient             threads per client
 * @param operations                   completed operations (acquire, write, release)
 * @param acquireTimeouts              acquires that gave up after their bounded wait
 * @param errors                       operations that failed with an exception (see {@code firstError})
 * @param overlaps                     holdings that began while another was inside (mutual exclusion broken)
 * @param staleWritesAccepted          writes the fenced register accepted from a holding that shared the
 *                                     latest writer's token (data at risk)
 * @param staleWritesRejected          writes the fenced register rejected as stale (fencing did its job)
 * @param tokenMonotonicityViolations  holdings whose token did not exceed an earlier, finished holding's
 * @param leasesLostInside             holdings whose lease was no longer held when the critical section ended
 * @param stuckThreads                 worker threads that did not stop in time and were interrupted
 * @param elapsed                      wall time of the run, on the monotonic clock
 * @param firstError                   the first exception an operation threw, or {@code null}
 */
public record WorkloadReport(String lockName, int clients, int threadsPerClient, long operations, long acquireTimeouts,
                             long errors, long overlaps, long staleWritesAccepted, long staleWritesRejected,
                             long tokenMonotonicityViolations, long leasesLostInside, int stuckThreads,
                             Duration elapsed, Throwable firstError) {

    /** No overlap, no stale write accepted and no token going backwards. */
    public boolean isSafe() {
        return overlaps == 0 && staleWritesAccepted == 0 && tokenMonotonicityViolations == 0;
    }

    @Override
    public String toString() {
        return "Contention workload on lock '" + lockName + "': " + clients + " client(s) x " + threadsPerClient
                + " thread(s) completed " + operations + " operation(s) in " + elapsed.toMillis() + " ms ("
                + acquireTimeouts + " acquire time-out(s), " + errors + " error(s)"
                + (firstError == null ? "" : ", first: " + firstError) + (stuckThreads == 0 ? "" : ", "
                + stuckThreads + " stuck thread(s) interrupted") + "). Safety: " + overlaps
                + " overlapping holding(s), " + staleWritesAccepted + " stale write(s) accepted, "
                + staleWritesRejected + " stale write(s) rejected by the fence, " + tokenMonotonicityViolations
                + " fencing token monotonicity violation(s), " + leasesLostInside
                + " lease(s) lost inside the critical section. Verdict: " + (isSafe() ? "SAFE" : "UNSAFE") + ".";
    }
}
