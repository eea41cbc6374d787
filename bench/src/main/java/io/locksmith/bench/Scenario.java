package io.locksmith.bench;

/** The scenarios of issue 9, with the figure each is judged by first. */
enum Scenario {
    ROUND_TRIP("store round trip", "one request on the raw client: the unit handoffs are judged in"),
    UNCONTENDED("uncontended", "one thread, one client: acquire + release of a free lock"),
    CONTENDED("contended", "8 threads, one client each (as 8 processes), on one lock, each holding it %s, then working 0-%s (random) before it needs it again; handoff = from the start of a release to the acquire of a thread that was waiting"),
    MANY_NAMES("many names", "32 threads on one client over 10,000 names, random name per operation"),
    RENEWAL("renewal", "one client holding many auto-renewed locks: store requests/s, client CPU, retained heap"),
    /**
     * Issue 29: one application (one client) whose N threads loop on ONE name, each {@code acquire(wait)}, hold,
     * release, for N = 8, 100, 1,000 and 10,000 virtual threads. Not in the default run ({@code --scenarios hot-lock}).
     */
    HOT_LOCK("hot lock", "one client, N threads in a loop on one name: acquire(%s), hold %s, release; a window of %s"
            + " per waiter count; every client opened with its 8-thread configuration (pools of 8) at every count"),
    /**
     * Issue 28: Locksmith's async API ({@code acquireAsync} + {@code closeAsync}) against its blocking API, the same
     * uncontended and contended scenarios in the same run. Not in the default run ({@code --scenarios async-overhead}).
     */
    ASYNC_OVERHEAD("async overhead", "Locksmith's async API (acquireAsync(wait) then closeAsync(), the calling"
            + " thread joining each future) against its blocking API (tryAcquire(wait), close()): the uncontended"
            + " scenario (acquire + release latency) and the contended one (8 clients on one name) for each"),
    /**
     * Issue 32: a read-write lock under a read-heavy load, each client's own read-write lock (Locksmith's, Redisson's
     * {@code RReadWriteLock}, Curator's {@code InterProcessReadWriteLock}). Not in the default run
     * ({@code --scenarios rw-read-heavy}).
     */
    RW_READ_HEAVY("read-heavy read-write lock", "%d threads, one client each, on one read-write lock: each acquire is a"
            + " write with probability %d %%, else a read, held %s, released, and asked again at once; waits are the"
            + " acquire calls"),
    /**
     * Issue 32: a semaphore under contention, each client's own semaphore (Locksmith's, Redisson's
     * {@code RPermitExpirableSemaphore}, Curator's {@code InterProcessSemaphoreV2}). Not in the default run
     * ({@code --scenarios semaphore}).
     */
    SEMAPHORE("semaphore", "a semaphore of %d permits under %d contenders, one client each: each takes one permit,"
            + " holds it %s, releases it and asks again at once; the wait is the acquire call; the most permits seen"
            + " held at once must not exceed %1$d (the run fails if it does)"),
    /**
     * Issue 32: how long an election is without a leader when the leader's client is closed or cut off, each client's own
     * election (Locksmith's, Curator's {@code LeaderLatch}, jetcd's {@code Election}). Not in the default run
     * ({@code --scenarios leader-failover}).
     */
    LEADER_FAILOVER("leader failover", "%d candidates, one client each, on one election, every client through a"
            + " proxy of its own. Closed: round after round the leader's client is closed (a clean shutdown that"
            + " releases the term: Locksmith's LockClient.close(), Curator's close(), which ends its session, jetcd's"
            + " lease revoked) and the time from the start of that close to another candidate's elected callback is"
            + " measured, over %d rounds after one unmeasured. Cut off: then, over %d rounds, the leader's proxy is"
            + " blackholed instead, as a crash or a partition leaves it, and the same time measured: the term ends"
            + " only when its lease runs out in the store (%s for every client: Locksmith's lease, Curator's session,"
            + " jetcd's lease TTL; mem:// has no proxy and runs no cut). A new candidate replaces the one closed or"
            + " cut off each round; elections that no close or cut caused are counted");

    private final String title;
    private final String description;

    Scenario(String title, String description) {
        this.title = title;
        this.description = description;
    }

    String title() {
        return title;
    }

    String description() {
        return description;
    }
}
