package io.locksmith.safety;

/** The faults a safety run injects. */
public enum Fault {
    /** A holder process is killed with SIGKILL while it holds the lock. */
    HOLDER_KILL("holder killed (-9)"),
    /** A holder process is frozen with SIGSTOP past its lease, then resumed and writes. */
    HOLDER_PAUSE("holder paused past its lease (SIGSTOP)"),
    /** A client's connection to the store goes silent (proxy blackhole, no RST) for two lease times. */
    CLIENT_PARTITION("client cut from the store (blackhole)"),
    /** A client's next reply from the store is dropped after its request was forwarded. */
    LOST_REPLY("reply lost after the request took effect"),
    /** A store node whose loss the deployment survives (leader, minority) is killed, later restarted. */
    NODE_KILL("store node killed (-9), restarted later"),
    /** The primary is killed after a grant the replica never received; Sentinel promotes the replica. */
    FAILOVER("primary killed, replica promoted without the latest grant");

    private final String description;

    Fault(String description) {
        this.description = description;
    }

    /** What the fault does, for reports. */
    public String description() {
        return description;
    }
}
