package io.locksmith.safety;

import io.locksmith.Lease;
import io.locksmith.LockClient;
import io.locksmith.LockException;
import io.locksmith.LockOptions;
import io.locksmith.LockStoreException;
import io.locksmith.LockTimeoutException;
import io.locksmith.tck.ContentionWorkload;
import io.locksmith.tck.FencedRegister;
import io.locksmith.tck.LockShape;
import io.locksmith.tck.TckTiming;
import io.locksmith.tck.WorkloadReport;
import io.locksmith.tck.fault.TcpProxies;
import io.locksmith.tck.fault.TcpProxy;
import io.locksmith.tck.fault.VictimProcess;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

/**
 * A bounded safety run on one deployment: three clients (one of them through a {@link TcpProxy} in front of
 * each member when the deployment can be proxied) run the TCK's {@link ContentionWorkload} on one lock through one
 * {@link FencedRegister} (or on several locks at once, {@link #locks(int)}, each with its own register checked on
 * its own), while a fault schedule injects, one after the other, every fault the deployment
 * supports: holders in child JVMs killed (-9) or frozen (SIGSTOP) past their lease, the proxied client cut off
 * or losing a reply, a store node killed and restarted, a failover that loses a grant. The run ends after
 * its duration and returns a {@link SafetyReport}. The holdings are the mutex's, or an exclusive use of a primitive
 * ({@link #shape(LockShape)}).
 * <pre>{@code
 * try (Deployment redis = new RedisSentinelDeployment()) {
 *     SafetyReport report = SafetyRun.on(redis).duration(Duration.ofSeconds(60)).run();
 *     assertTrue(report.isSafe(), report.toMarkdown("..."));
 * }
 * }</pre>
 * Not thread-safe.
 */
public final class SafetyRun {

    private static final Duration VICTIM_START = Duration.ofSeconds(30);
    /** How the outcome of a fault that could not be completed begins. */
    private static final String NOT_COMPLETED = "the fault could not be completed: ";

    private final Deployment deployment;
    private Duration duration = Duration.ofSeconds(60);
    private int operations;
    private int everyFault;
    private int locks = 1;
    private LockShape shape = LockShape.MUTEX;
    private double readShare;
    private Timeline timeline;

    private SafetyRun(Deployment deployment) {
        this.deployment = Objects.requireNonNull(deployment, "deployment cannot be null");
    }

    /** A run on {@code deployment}, which the caller starts and closes. */
    public static SafetyRun on(Deployment deployment) {
        return new SafetyRun(deployment);
    }

    /** How long the workload runs; faults are injected until then. Default 60 s. */
    public SafetyRun duration(Duration duration) {
        Objects.requireNonNull(duration, "duration cannot be null");
        if (duration.isNegative() || duration.isZero()) {
            throw new IllegalArgumentException("duration must be positive, was " + duration);
        }
        this.duration = duration;
        return this;
    }

    /**
     * Runs until {@code operations} lock-protected operations have completed (failed attempts do not count)
     * instead of for the whole duration, which then only caps the run; faults are injected until the workload
     * ends. Default: none, the run lasts its duration.
     */
    public SafetyRun operations(int operations) {
        if (operations <= 0) {
            throw new IllegalArgumentException("operations must be positive, was " + operations);
        }
        this.operations = operations;
        return this;
    }

    /**
     * With {@link #operations(int)}: the run also goes on until every fault the deployment supports has completed at
     * least {@code times} times (a failover once: it consumes the replica), so that a store fast enough to finish its
     * operations in seconds still meets each of its faults; a fault that could not be completed (a victim JVM that
     * never got the lock) does not count. The duration still caps the run. Default 0: the operations alone end it.
     */
    public SafetyRun everyFault(int times) {
        if (times < 0) {
            throw new IllegalArgumentException("times must not be negative, was " + times);
        }
        this.everyFault = times;
        return this;
    }

    /**
     * Contends for {@code locks} lock names at once instead of one, each with its own {@link FencedRegister} checked
     * on its own: a store whose handoff of one lock is slow (etcd's watch) then still completes many operations
     * per second, and every lock is as contended as the single one was (the same clients and threads per lock).
     * The operations of {@link #operations(int)} are one budget the locks draw from (a lock that is slow or blocked
     * for a while does not hold the run up; each lock's own count is in {@link SafetyReport#locks()}); the holder,
     * pause and failover faults target the first lock whose workload still runs, the client, reply and node faults
     * hit every lock at once.
     * Default 1.
     */
    public SafetyRun locks(int locks) {
        if (locks <= 0) {
            throw new IllegalArgumentException("locks must be positive, was " + locks);
        }
        this.locks = locks;
        return this;
    }

    /**
     * Takes every holding through this shape of primitive instead of the mutex: the workload's, the victims' in child
     * JVMs, the failover's first holder and the probe that checks a killed holder's lock is free again, so that an
     * exclusive use of a semaphore or a read-write lock meets every fault the mutex meets and is judged by the same
     * fenced register. Default {@link LockShape#MUTEX}.
     */
    public SafetyRun shape(LockShape shape) {
        this.shape = Objects.requireNonNull(shape, "shape cannot be null");
        return this;
    }

    /**
     * Makes this share of the workload's operations readers of the read-write lock whose write lock the
     * {@link LockShape#WRITE_LOCK} shape takes ({@link ContentionWorkload#readers(double)}): readers share, and a writer
     * beside anyone is an overlap. The victims in child JVMs stay writers. Default 0.
     *
     * @throws IllegalArgumentException if {@code share} is not between 0 and 1
     */
    public SafetyRun readers(double share) {
        if (!(share >= 0 && share <= 1)) {
            throw new IllegalArgumentException("the readers' share must be between 0 and 1, was " + share);
        }
        this.readShare = share;
        return this;
    }

    /** Runs the workload and the fault schedule; returns when both are done. */
    public SafetyReport run() {
        return new Run().execute();
    }

    /**
     * The timeline of the last {@link #run()}'s first lock: every holding per client, the fault windows and the stale
     * writes, for {@link TimelineChart}.
     *
     * @throws IllegalStateException if the run has not completed
     */
    public Timeline timeline() {
        if (timeline == null) {
            throw new IllegalStateException("no timeline before a run of " + deployment.name() + " has completed");
        }
        return timeline;
    }

    /** The state of one run. */
    private final class Run {
        final TckTiming timing = deployment.timing();
        final String runId = "safety-" + deployment.name() + "-" + UUID.randomUUID();
        final List<String> lockNames = new ArrayList<>();
        final List<FencedRegister> registers = new ArrayList<>();
        final List<CompletableFuture<WorkloadReport>> perLock = new ArrayList<>();
        /**
         * The lock (and its register) that the next holder, pause or failover fault targets: the first one whose
         * workload still runs, so that a holder frozen near the end of the run still has somebody to take its lock.
         */
        int target;
        String lockName;
        FencedRegister register;
        final List<FaultRecord> faults = new ArrayList<>();
        final Duration holderLease = timing.shortLease();
        final Duration workloadLease = timing.slack();
        long start;
        long staleHolderWrites;
        long staleHolderWritesAccepted;
        long staleHoldersNotTold;
        long doubleGrants;
        TcpProxies proxy;
        /** The rows of the timeline: each in-JVM client's id, then the victim JVMs and the failover's holder. */
        final List<String> clientIds = new ArrayList<>();
        final List<String> rowNames = new ArrayList<>();
        /** The first lock's holdings outside the register (the victims', the failover holder's). */
        final List<Timeline.Holding> otherHoldings = new ArrayList<>();
        final List<Timeline.Window> windows = new ArrayList<>();
        /**
         * The operations the workers may still start (failed attempts give theirs back). Unlimited while the faults
         * of {@link #everyFault(int)} are still due, then cut to what is left of {@link #operations(int)}.
         */
        final AtomicInteger budget = new AtomicInteger(operations > 0 && everyFault == 0 ? operations : Integer.MAX_VALUE);

        Run() {
            for (int i = 0; i < locks; i++) {
                lockNames.add(locks == 1 ? runId : runId + "-" + i);
                registers.add(new FencedRegister());
            }
            lockName = lockNames.get(0);
            register = registers.get(0);
        }

        SafetyReport execute() {
            List<LockClient> clients = new ArrayList<>();
            try {
                if (deployment.faults().contains(Fault.CLIENT_PARTITION) || deployment.faults().contains(Fault.LOST_REPLY)) {
                    // One proxy per member the client may talk to: cutting them all cuts it off, whichever it uses.
                    proxy = TcpProxies.start(deployment.proxiedAddresses());
                    clients.add(LockClient.open(deployment.uriThrough(proxy.list())));
                }
                while (clients.size() < 3) {
                    clients.add(LockClient.open(deployment.uri()));
                }
                for (LockClient client : clients) {
                    rowNames.add("client " + clientIds.size() + (proxy != null && clientIds.isEmpty() ? " (proxied)" : ""));
                    clientIds.add(client.clientId());
                }
                rowNames.add("victim JVMs");
                if (deployment.faults().contains(Fault.FAILOVER)) {
                    rowNames.add("failover holder");
                }
                start = System.nanoTime();
                // One budget for every lock: the run ends at the total, however it falls between the locks.
                for (int i = 0; i < locks; i++) {
                    String name = lockNames.get(i);
                    FencedRegister fence = registers.get(i);
                    CompletableFuture<WorkloadReport> one = new CompletableFuture<>();
                    // A thread per lock, not the common pool: on 2 cores it would run the locks one after the other.
                    Thread runner = new Thread(() -> {
                        try {
                            one.complete(workload(clients, name, fence, budget));
                        } catch (Throwable e) {
                            one.completeExceptionally(e);
                        }
                    }, "safety-workload-" + i);
                    runner.setDaemon(true);
                    runner.start();
                    perLock.add(one);
                }
                CompletableFuture<Void> workload = CompletableFuture.allOf(perLock.toArray(CompletableFuture[]::new));
                injectFaults(workload);
                workload.join();
                List<WorkloadReport> reports = perLock.stream().map(CompletableFuture::join).toList();
                for (int i = 0; i < registers.size(); i++) {
                    for (String overlap : registers.get(i).overlapRecords()) {
                        System.out.println("overlap on " + lockNames.get(i) + " (run started "
                                + java.time.Instant.now().minusNanos(System.nanoTime() - start) + "): " + overlap);
                    }
                }
                WorkloadReport report = reports.size() == 1 ? reports.get(0)
                        : SafetyReport.sumOf(reports.size() + " locks " + runId + "-0.." + (reports.size() - 1), reports);
                timeline = history();
                String description = shape == LockShape.MUTEX ? deployment.description()
                        : deployment.description() + "; every holding through " + shape.argument() + " ("
                        + shapeDescription() + ")";
                return new SafetyReport(deployment.name(), description,
                        Duration.ofNanos(System.nanoTime() - start), report, List.copyOf(faults), staleHolderWrites,
                        staleHolderWritesAccepted, staleHoldersNotTold, doubleGrants, reports);
            } finally {
                if (proxy != null) {
                    proxy.heal();
                }
                Servers.closeAll(clients);
                if (proxy != null) {
                    proxy.close();
                }
            }
        }

        /** The first lock's history, in milliseconds since the run began. */
        private Timeline history() {
            List<Timeline.Holding> holdings = new ArrayList<>(otherHoldings);
            for (FencedRegister.HoldInterval interval : registers.get(0).intervals()) {
                int row = rowOf(interval.holderId());
                if (row >= 0) {
                    holdings.add(new Timeline.Holding(row, sinceStart(interval.startNanos()),
                            sinceStart(interval.endNanos()), interval.token(), false));
                }
            }
            List<Timeline.StaleWrite> writes = new ArrayList<>();
            for (FencedRegister.StaleWrite write : registers.get(0).staleWrites()) {
                int row = rowOf(write.writerId());
                if (row >= 0) {
                    writes.add(new Timeline.StaleWrite(row, sinceStart(write.atNanos()), write.token(), write.accepted()));
                }
            }
            return new Timeline(deployment.name(), lockNames.get(0), locks, millisSinceStart(), rowNames, holdings,
                    windows, writes);
        }

        /** The row of a holder or writer id: the workload's ({@code clientId#operation}), a victim's, the failover's. */
        private int rowOf(String holderId) {
            if (holderId.startsWith("victim-")) {
                return clientIds.size();
            }
            if (holderId.startsWith("failover-holder-")) {
                return rowNames.size() - 1;
            }
            int hash = holderId.lastIndexOf('#');
            return hash < 0 ? -1 : clientIds.indexOf(holderId.substring(0, hash));
        }

        private long sinceStart(long nanos) {
            return TimeUnit.NANOSECONDS.toMillis(nanos - start);
        }

        /** A fault's window, when the fault concerns the lock the timeline draws (the first). */
        private void window(Fault fault, boolean everyLock, long fromMillis) {
            if (everyLock || target == 0) {
                windows.add(new Timeline.Window(fault, fromMillis, millisSinceStart()));
            }
        }

        /** A holding of the first lock that its register does not see: a victim JVM's, the failover holder's. */
        private void holding(int row, long fromMillis, long toMillis, long token, boolean frozen) {
            if (target == 0) {
                otherHoldings.add(new Timeline.Holding(row, fromMillis, toMillis, token, frozen));
            }
        }

        private WorkloadReport workload(List<LockClient> clients, String name, FencedRegister fence, AtomicInteger budget) {
            return ContentionWorkload.on(clients, name)
                    .threadsPerClient(2)
                    .operationsFrom(budget)
                    .countingOnlyCompleted()
                    .maxDuration(duration)
                    .holdFor(Duration.ofMillis(5))
                    .acquireWait(timing.slack().multipliedBy(5))
                    .lockOptions(LockOptions.builder().leaseTime(workloadLease).build())
                    .shape(shape)
                    .readers(readShare)
                    .register(fence)
                    .run();
        }

        /** Overlapping holdings so far, over every lock's register. */
        private long overlaps() {
            return registers.stream().mapToLong(FencedRegister::overlaps).sum();
        }

        /** Fenced writes accepted so far, over every lock's register. */
        private long acceptedWrites() {
            return registers.stream().mapToLong(FencedRegister::acceptedWrites).sum();
        }

        private void injectFaults(CompletableFuture<?> workload) {
            List<Fault> schedule = new ArrayList<>(deployment.faults());
            if (schedule.isEmpty()) {
                return; // a deployment that suffers no fault: the workload alone
            }
            boolean failOverDone = false;
            int round = 0;
            boolean budgetCut = false;
            while (!workload.isDone() && remainingNanos() > timing.slack().multipliedBy(2).toNanos()) {
                if (!budgetCut && operations > 0 && everyFault > 0 && everyFaultCompleted()) {
                    // Every fault had its turns: from now on the operations end the run, counting those already done.
                    budget.getAndUpdate(left -> Math.max(0, operations - (Integer.MAX_VALUE - left)));
                    budgetCut = true;
                }
                Fault fault = schedule.get(round++ % schedule.size());
                if (fault == Fault.FAILOVER) {
                    // A failover consumes the replica: once per run, after every other fault had its turn.
                    if (failOverDone || round <= schedule.size()) {
                        continue;
                    }
                    failOverDone = true;
                }
                long at = millisSinceStart();
                long begun = System.nanoTime();
                try {
                    FaultRecord record = inject(fault, at);
                    faults.add(record);
                } catch (RuntimeException | AssertionError e) {
                    faults.add(new FaultRecord(fault, at, millisSince(begun), NOT_COMPLETED
                            + e.getMessage(), false));
                }
                // Let the workload run undisturbed for a while between faults.
                pause(timing.shortLease().multipliedBy(2));
            }
        }

        /** Whether each fault of the deployment completed {@link #everyFault(int)} times (a failover once). */
        private boolean everyFaultCompleted() {
            for (Fault fault : deployment.faults()) {
                long completed = faults.stream()
                        .filter(f -> f.fault() == fault && !f.outcome().startsWith(NOT_COMPLETED)).count();
                if (completed < (fault == Fault.FAILOVER ? Math.min(1, everyFault) : everyFault)) {
                    return false;
                }
            }
            return true;
        }

        private FaultRecord inject(Fault fault, long at) {
            target = 0;
            while (target < locks - 1 && perLock.get(target).isDone()) {
                target++;
            }
            lockName = lockNames.get(target);
            register = registers.get(target);
            return switch (fault) {
                case HOLDER_KILL -> killHolder(at);
                case HOLDER_PAUSE -> pauseHolder(at);
                case CLIENT_PARTITION -> partitionClient(at);
                case LOST_REPLY -> loseReply(at);
                case NODE_KILL -> killNode(at);
                case FAILOVER -> failOver(at);
            };
        }

        private VictimProcess victim() {
            return VictimProcess.start(deployment.uri(), lockName,
                    LockOptions.builder().leaseTime(holderLease).renewing().build(), shape);
        }

        private FaultRecord killHolder(long at) {
            try (VictimProcess victim = victim()) {
                long token = victim.awaitAcquired(VICTIM_START);
                long acquiredMillis = millisSinceStart();
                victim.fencedWrite(register, -1);
                long writes = register.acceptedWrites();
                victim.kill();
                long killedAt = System.nanoTime();
                long killedMillis = millisSinceStart();
                holding(clientIds.size(), acquiredMillis, killedMillis, token, false);
                Duration bound = holderLease.plus(timing.slack()).plus(timing.slack());
                // Stop waiting as soon as the workload stops too: it is then nobody's turn to take the lock, and
                // waiting out the bound before asking a fresh client reported the bound as the time to free it.
                awaitCondition(bound, () -> register.acceptedWrites() > writes || perLock.get(target).isDone());
                boolean freed = register.acceptedWrites() > writes;
                if (!freed && perLock.get(target).isDone()) {
                    // The workload reached its operations and stopped: nobody was left to take the lock. Ask a
                    // fresh client instead, within what is left of the bound.
                    try (LockClient probe = LockClient.open(deployment.uri())) {
                        long left = bound.toNanos() - (System.nanoTime() - killedAt);
                        // Through the run's shape: a primitive's store locks are not named lockName.
                        Optional<Lease> taken = shape.lock(probe, lockName, LockOptions.builder().leaseTime(workloadLease)
                                .build()).tryAcquire(Duration.ofNanos(Math.max(0, left)));
                        taken.ifPresent(Lease::close);
                        freed = taken.isPresent();
                    }
                }
                long freedAfter = millisSince(killedAt);
                window(Fault.HOLDER_KILL, false, killedMillis);
                return new FaultRecord(Fault.HOLDER_KILL, at, freedAfter, freed
                        ? "lock taken by another holder " + freedAfter + " ms after the kill (lease " + holderLease.toMillis() + " ms)"
                        : "lock not taken by anyone within " + bound.toMillis() + " ms of the kill", !freed);
            }
        }

        private FaultRecord pauseHolder(long at) {
            try (VictimProcess victim = victim()) {
                long token = victim.awaitAcquired(VICTIM_START);
                long acquiredMillis = millisSinceStart();
                victim.fencedWrite(register, -2);
                long writes = register.acceptedWrites();
                victim.pause();
                long pausedAt = System.nanoTime();
                long pausedMillis = millisSinceStart();
                Duration bound = holderLease.plus(timing.slack()).plus(timing.slack());
                boolean takenOver = awaitCondition(bound, () -> register.acceptedWrites() > writes);
                long pausedFor = millisSince(pausedAt);
                victim.resume();
                holding(clientIds.size(), acquiredMillis, pausedMillis, token, false);
                holding(clientIds.size(), pausedMillis, millisSinceStart(), token, true);
                window(Fault.HOLDER_PAUSE, false, pausedMillis);
                VictimProcess.FencedWrite late = victim.fencedWrite(register, -3);
                if (!takenOver) {
                    return new FaultRecord(Fault.HOLDER_PAUSE, at, pausedFor, "nobody took the lock while the holder"
                            + " (token " + token + ") was frozen for " + pausedFor + " ms", false);
                }
                staleHolderWrites++;
                boolean violation = false;
                if (late.accepted()) {
                    staleHolderWritesAccepted++;
                    violation = true;
                }
                if (late.heldBeforeWrite()) {
                    staleHoldersNotTold++;
                    violation = true;
                }
                return new FaultRecord(Fault.HOLDER_PAUSE, at, pausedFor, "holder (token " + token + ") frozen "
                        + pausedFor + " ms; another holder wrote meanwhile; on resume isHeld()=" + late.heldBeforeWrite()
                        + " (" + late.lossReason() + "), its late write was " + (late.accepted() ? "ACCEPTED" : "rejected")
                        + " by the fence", violation);
            }
        }

        private FaultRecord partitionClient(long at) {
            long overlapsBefore = overlaps();
            proxy.blackhole();
            long cutAt = System.nanoTime();
            long cutMillis = millisSinceStart();
            pause(workloadLease.multipliedBy(2));
            proxy.heal();
            window(Fault.CLIENT_PARTITION, true, cutMillis);
            long overlaps = overlaps() - overlapsBefore;
            return new FaultRecord(Fault.CLIENT_PARTITION, at, millisSince(cutAt), "client 0 cut off for "
                    + millisSince(cutAt) + " ms (lease " + workloadLease.toMillis() + " ms); " + overlaps
                    + " overlapping holding(s) meanwhile", overlaps > 0);
        }

        private FaultRecord loseReply(long at) {
            long dropped = proxy.droppedReplies();
            proxy.dropNextReplies(1);
            long begun = System.nanoTime();
            long begunMillis = millisSinceStart();
            boolean happened = awaitCondition(timing.slack(), () -> proxy.droppedReplies() > dropped);
            proxy.heal();
            if (happened) {
                // On a real network a reply is lost with its connection: break it after a while, as rule R9.5 does,
                // for clients (ZooKeeper's) that would otherwise wait for that reply on a live connection.
                pause(timing.slack());
                proxy.resetAll();
            }
            window(Fault.LOST_REPLY, true, begunMillis);
            return new FaultRecord(Fault.LOST_REPLY, at, millisSince(begun), happened
                    ? "one reply to client 0 dropped after its request took effect; its connection reset "
                            + timing.slack().toMillis() + " ms later"
                    : "client 0 sent nothing within " + timing.slack().toMillis() + " ms; no reply dropped", false);
        }

        private FaultRecord killNode(long at) {
            long overlapsBefore = overlaps();
            long writes = acceptedWrites();
            deployment.killNode();
            long killedAt = System.nanoTime();
            long killedMillis = millisSinceStart();
            // RedLock's delayed restart: a node that forgot its locks comes back only after the longest lease.
            pause(workloadLease.multipliedBy(2));
            long writesWhileDown = acceptedWrites() - writes;
            deployment.restartNode();
            window(Fault.NODE_KILL, true, killedMillis);
            long overlaps = overlaps() - overlapsBefore;
            return new FaultRecord(Fault.NODE_KILL, at, millisSince(killedAt), "node killed, restarted after "
                    + millisSince(killedAt) + " ms; " + writesWhileDown + " fenced write(s) accepted while it was down; "
                    + overlaps + " overlapping holding(s)", overlaps > 0);
        }

        private FaultRecord failOver(long at) {
            try (LockClient first = LockClient.open(deployment.uri())) {
                return failOver(at, first);
            } finally {
                deployment.resumeReplication();
                // The old primary comes back as a replica: a deployment that waits for replica acks needs one.
                deployment.restartNode();
            }
        }

        private FaultRecord failOver(long at, LockClient first) {
            deployment.stopReplication();
            Lease lease;
            try {
                lease = shape.lock(first, lockName, LockOptions.builder().leaseTime(timing.longLease()).build())
                        .acquire(timing.slack().multipliedBy(5));
            } catch (LockStoreException | LockTimeoutException e) {
                // A client that waits for replica acks (WAIT) is refused a grant the replica did not receive; its
                // bounded acquire retries the refusals and may end in a time-out. Fail over all the same: the
                // workload's clients are refused too, and the promoted replica must not grant anything twice.
                long begun = System.nanoTime();
                deployment.failOver();
                return new FaultRecord(Fault.FAILOVER, at, millisSince(begun), "with replication stopped no grant"
                        + " was confirmed (" + e.getMessage() + "): nobody held a lock the promoted replica lacked;"
                        + " failover took " + millisSince(begun) + " ms", false);
            }
            long token = lease.fencingToken();
            long acquiredMillis = millisSinceStart();
            String writer = "failover-holder-" + first.clientId();
            register.write(token, writer, -4);
            long writes = register.acceptedWrites();
            long begun = System.nanoTime();
            long begunMillis = millisSinceStart();
            deployment.failOver();
            long failedOverAfter = millisSince(begun);
            window(Fault.FAILOVER, false, begunMillis);
            Duration bound = timing.slack().multipliedBy(5);
            boolean secondHolder = awaitCondition(bound, () -> register.acceptedWrites() > writes);
            boolean stillHeld = lease.isHeld();
            if (!secondHolder) {
                closeQuietly(lease);
                holding(rowNames.size() - 1, acquiredMillis, millisSinceStart(), token, false);
                return new FaultRecord(Fault.FAILOVER, at, failedOverAfter, "failover took " + failedOverAfter
                        + " ms; nobody else got the lock within " + bound.toMillis() + " ms (the grant survived)", false);
            }
            if (stillHeld) {
                doubleGrants++;
            }
            staleHolderWrites++;
            boolean accepted = register.write(token, writer, -5);
            if (accepted) {
                staleHolderWritesAccepted++;
            }
            closeQuietly(lease);
            holding(rowNames.size() - 1, acquiredMillis, millisSinceStart(), token, false);
            return new FaultRecord(Fault.FAILOVER, at, failedOverAfter, "failover took " + failedOverAfter
                    + " ms; the promoted replica lacked the grant of token " + token + " and granted the lock again"
                    + (stillHeld ? " while the first holder still held it (double grant)" : "")
                    + "; the first holder's late write was " + (accepted ? "ACCEPTED" : "rejected") + " by the fence",
                    accepted);
        }

        private void closeQuietly(Lease lease) {
            try {
                lease.close();
            } catch (LockException e) {
                // the store lost it in the failover: nothing to release
            }
        }

        private String shapeDescription() {
            return switch (shape) {
                case MUTEX -> "the lock";
                case WRITE_LOCK -> "the write lock of a read-write lock of " + LockShape.WRITE_LOCK_MAX_READERS
                        + " readers";
                case SEMAPHORE -> "all " + LockShape.SEMAPHORE_PERMITS + " permits of a semaphore as one lease";
                case ELECTION_TERM -> "a term of an election: each acquire a new candidate, each release its leaving";
            } + (readShare > 0 ? "; " + Math.round(readShare * 100) + "% of the workload's operations readers of its"
                    + " read lock, beside the writers" : "");
        }

        private long remainingNanos() {
            return start + duration.toNanos() - System.nanoTime();
        }

        private long millisSinceStart() {
            return millisSince(start);
        }
    }

    private static long millisSince(long nanos) {
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - nanos);
    }

    /** Lets time pass under a fault: the subject of the schedule is time itself. */
    private static void pause(Duration duration) {
        long until = System.nanoTime() + duration.toNanos();
        long left;
        while ((left = until - System.nanoTime()) > 0) {
            LockSupport.parkNanos(left);
            if (Thread.currentThread().isInterrupted()) {
                return;
            }
        }
    }

    /** Polls an in-JVM condition every millisecond until it holds or {@code bound} passes. */
    private static boolean awaitCondition(Duration bound, BooleanSupplier condition) {
        long deadline = System.nanoTime() + bound.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                return false;
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
        }
        return true;
    }
}
