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
            + " scenario (acquire + release latency) and the contended one (8 clients on one name) for each");

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
