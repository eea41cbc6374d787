package io.locksmith.tck;

import io.locksmith.LockClient;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A run that counts only completed operations completes all of them, even when one fails after others stopped. */
class ContentionWorkloadBudgetTest {

    /**
     * Regression: each worker that found the budget spent took it below zero, so an operation given back by a failed
     * attempt of a worker still running was swallowed, and the run ended short (the safety runs stopped at 9,980 of
     * 10,000 with 48 workers).
     */
    @Test
    void anOperationGivenBackAfterAnotherWorkerStoppedIsStillDone() throws Exception {
        AtomicReference<Thread> firstToFinish = new AtomicReference<>();
        AtomicInteger entries = new AtomicInteger();
        java.util.concurrent.atomic.AtomicBoolean otherStopped = new java.util.concurrent.atomic.AtomicBoolean();
        // The budget is watched, so the first worker finishes only once the other has drawn the second operation:
        // otherwise the first could draw it too and be the one that enters second (it then waited for itself).
        AtomicInteger budget = new AtomicInteger(2);
        try (LockClient client = LockClient.open("mem://budget-" + UUID.randomUUID())) {
            WorkloadReport report = ContentionWorkload.on(List.of(client), "budget")
                    .threadsPerClient(2)
                    .operationsFrom(budget)
                    .countingOnlyCompleted()
                    .acquireWait(Duration.ofSeconds(10))
                    .maxDuration(Duration.ofSeconds(20))
                    .inside((lease, clientIndex, operation) -> {
                        if (entries.incrementAndGet() == 1) {
                            firstToFinish.set(Thread.currentThread()); // completes, finds the budget spent, stops
                            org.awaitility.Awaitility.await("the other worker draws the second operation")
                                    .atMost(Duration.ofSeconds(10)).until(() -> budget.get() == 0);
                        } else if (entries.get() == 2) {
                            // Fail only once the other worker has stopped: its operation is then given back to
                            // nobody but this worker.
                            Thread other = firstToFinish.get();
                            other.join(TimeUnit.SECONDS.toMillis(10));
                            otherStopped.set(!other.isAlive());
                            throw new IllegalStateException("the second operation fails once");
                        }
                    })
                    .run();

            assertTrue(otherStopped.get(), "the other worker did not stop before the failure");
            assertEquals(2, report.operations(), report.toString());
            assertEquals(1, report.errors(), report.toString());
        }
    }
}
