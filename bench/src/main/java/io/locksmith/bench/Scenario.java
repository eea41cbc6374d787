package io.locksmith.bench;

/** The scenarios of issue 9, with the figure each is judged by first. */
enum Scenario {
    ROUND_TRIP("store round trip", "one request on the raw client: the unit handoffs are judged in"),
    UNCONTENDED("uncontended", "one thread, one client: acquire + release of a free lock"),
    CONTENDED("contended", "8 threads, one client each (as 8 processes), on one lock, each holding it %s, then working 0-%s (random) before it needs it again; handoff = from the start of a release to the acquire of a thread that was waiting"),
    MANY_NAMES("many names", "32 threads on one client over 10,000 names, random name per operation"),
    RENEWAL("renewal", "one client holding many auto-renewed locks: store requests/s, client CPU, retained heap");

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
