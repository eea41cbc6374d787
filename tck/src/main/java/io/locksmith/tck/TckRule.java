package io.locksmith.tck;

import io.locksmith.Capability;

import java.util.Locale;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The rules of {@code docs/SPEC.md}, one constant each, with the hint an implementer needs when the rule
 * fails. A self-test keeps this list, the spec and the test methods of {@link LockTck} in sync: every rule
 * in the spec is here, and every rule here has a test named {@code required_r<group>_<n>_...} (or
 * {@code optional_...} when a capability switches it).
 */
public enum TckRule {

    R1_1("R1.1", Level.MUST, null, "Mutual exclusion per name",
            "tryAcquire must refuse while another owner holds the name; check the compare in the acquire step"),
    R1_2("R1.2", Level.MUST, null, "Names are independent",
            "locks must be keyed by the full name; check key building and prefixes"),
    R1_3("R1.3", Level.MUST, null, "Acquire is atomic under a race",
            "the check for a free lock and the write of the owner must be one atomic store operation"
                    + " (SET NX PX, a transaction, a create), never check-then-set"),
    R1_4("R1.4", Level.MUST, null, "Contention workload shows no overlap",
            "run ContentionWorkload alone and read its report; look for a lock granted twice"),
    R1_5("R1.5", Level.MUST, null, "A randomized history satisfies the lock model",
            "read the first violating pair: a lock granted twice, a loss never reported, a token not increasing,"
                    + " or a call that outlived its bound"),

    R2_1("R2.1", Level.MUST, null, "Release is owner-checked",
            "release must compare the owner id in the store before it deletes (compare-and-delete)"),
    R2_2("R2.2", Level.MUST, null, "Renewal is owner-checked",
            "renew must compare the owner id in the store and answer false when the lock is someone else's"),
    R2_3("R2.3", Level.MUST, null, "Release frees the lock at once",
            "release must delete the lock in the store synchronously and answer only when done"),
    R2_4("R2.4", Level.MUST, null, "Holder identity is unique and visible",
            "each client must have its own id; store Owner.holder() beside the lock and return it from inspect"),
    R2_5("R2.5", Level.MUST, null, "Ownership is per holding, not per client",
            "renew and release must compare the holding's owner id (Owner.id()), never the client id"),
    R2_6("R2.6", Level.MUST, Capability.ACCESS_CONTROL, "Another identity can neither take, free, extend nor read a held lock",
            "make every record of a lock (keys, nodes, rows, and the parents a delete or create needs) the application's"
                    + " identity's alone; a control failure means the hook rawStoreSession does not reach them"),

    R3_1("R3.1", Level.MUST, null, "A crashed holder's lock frees itself",
            "acquire must set the TTL in the same atomic step as the owner; for a store whose leases the client"
                    + " times (appliesTtl() false), release must free the lock when the client's release at the TTL"
                    + " arrives"),
    R3_2("R3.2", Level.MUST, null, "No early expiry",
            "the store must keep a lock for the whole requested TTL; check the TTL unit (ms vs s) and rounding"),
    R3_3("R3.3", Level.MUST, null, "The store frees a lock at its TTL, and the holder knows first",
            "apply the TTL in milliseconds as given; effectiveTtl must state any rounding; Grant.validity must not"
                    + " exceed what the store keeps"),
    R3_10("R3.10", Level.MUST, null, "A lease under the store's minimum is refused before any store call",
            "state in LockProvider.minimumTtl() the shortest lease the store honours (round trips plus drift)"),
    R3_11("R3.11", Level.MUST, null, "The limits hold at their edges: no eternal lock, no overflow",
            "apply the TTL in a type that holds a day in the store's unit (a day is 8.64e10 microseconds: not an int)"),

    R4_1("R4.1", Level.MUST, null, "Local re-entry is counted and shares the token",
            "re-entry is the shared client's job; a provider must not be asked twice for one thread"),
    R4_2("R4.2", Level.MUST, null, "Re-entry is per thread: other threads are excluded",
            "the store must refuse a second owner even from the same client"),
    R4_3("R4.3", Level.MUST, null, "The store lock is released with the last re-entrant lease",
            "the shared client releases once; a provider must not release on the first close"),
    R4_4("R4.4", Level.MUST, null, "A lease handed to another thread excludes the thread it left",
            "re-entry is the shared client's: a lease handed off (or worked with from another thread) must not be"
                    + " re-entered by its former thread; check that acquire waits on the store after a hand-off"),
    R4_5("R4.5", Level.MUST, null, "A non-reentrant lock never re-enters",
            "the shared client must not re-enter a lock whose options say reentrant(false)"),
    R4_6("R4.6", Level.MUST, null, "An async lease is never re-entered by a thread",
            "leases from acquireAsync are bound to no thread; a blocking or async acquire on the same name waits"),

    R5_1("R5.1", Level.MUST, Capability.FENCING, "Fencing tokens strictly increase per name",
            "keep a counter that survives the lock (a separate key, a revision, a zxid); never restart it per holding"),
    R5_2("R5.2", Level.MUST, Capability.FENCING, "Fencing tokens increase across an expiry",
            "the token counter must not be stored in the lock key itself, which expires with it"),
    R5_3("R5.3", Level.MUST, Capability.FENCING, "A fenced resource accepts no stale write under contention",
            "run ContentionWorkload and read its report: tokens must increase with every holding"),

    R6_1("R6.1", Level.MUST, null, "Renewal keeps a held lock alive past its TTL",
            "renew must extend the TTL to the requested time from now, and answer true"),
    R6_2("R6.2", Level.MUST, null, "Renewal stops at release",
            "the message says which of three steps failed. The renewing lease lost before its release: a renewal"
                    + " answered false or came too late (see R6.1; if it passes alone and fails only on a loaded machine,"
                    + " read docs/TCK.md 'Timing on a slow machine'). The lock not free at once after the release:"
                    + " release must delete before it answers (R2.3). The next holder's fixed lease never running out:"
                    + " a renewal of the released grant extended the new holder's lock (renew must compare the owner,"
                    + " R2.2), or the store did not apply the new holder's TTL"),
    R6_3("R6.3", Level.MUST, null, "Renewal stops at the maximum hold",
            "the lock must run out at its TTL once renewals stop; check the TTL of the last renewal"),
    R6_4("R6.4", Level.MUST, null, "Loss is signalled when the store-side lock is gone",
            "renew must answer false when the store no longer has this owner's lock (never a blind true)"),
    R6_5("R6.5", Level.MUST, null, "A fixed lease is reported lost when it runs out",
            "Grant.validity must not be longer than the TTL the store applies"),
    R6_6("R6.6", Level.MUST, Capability.BATCH_RENEW, "Batch renewal keeps many leases alive",
            "renewAll must answer one result per request, in order, and extend each lock"),
    R6_7("R6.7", Level.MUST, null, "Renewal sets the TTL, it does not add to it",
            "renew must set the time to live to the requested TTL from now (PEXPIRE), never add to what is left"),
    R6_8("R6.8", Level.MUST, null, "Closing a lease whose lock vanished reports the loss",
            "release must answer false when it removed nothing (the owner's lock was already gone), and true when it"
                    + " removed the owner's lock"),
    R6_9("R6.9", Level.MUST, Capability.SESSION_BOUND, "A session's loss is reported before another holder is let in",
            "report every grant of an ended session through ProviderContext.lossListener() before the provider acquires"
                    + " anything on a new session (ZooKeeper: when the new session connects, before its first request;"
                    + " etcd: when a keep-alive or a request answers lease not found)"),

    R7_1("R7.1", Level.MUST, null, "A bounded wait times out and leaves nothing behind",
            "cancel must remove every queue entry or watch of the owner; tryAcquire must not block"),
    R7_2("R7.2", Level.MUST, null, "Waiting is interruptible and leaves nothing behind",
            "store calls must not swallow interrupts; cancel must remove the owner's queue entry"),
    R7_3("R7.3", Level.MUST, null, "A waiter gets the lock when it is released",
            "a waiter's retries must see the release; check subscribe and the lock key after delete"),
    R7_4("R7.4", Level.MUST, Capability.RELEASE_NOTIFICATION, "Handoff by notification",
            "subscribe must call back on every release (delete, expiry) of the name, from the moment it returns"),
    R7_5("R7.5", Level.MUST, Capability.FAIR, "Fair stores serve waiters in arrival order",
            "queue a waiter on its first willWait attempt and grant only to the queue head"),
    R7_6("R7.6", Level.MUST, Capability.INSPECT_WAITERS, "Inspect lists the queued waiters",
            "return the queued owners' holder identities in LockInfo.waiters"),
    R7_8("R7.8", Level.MUST, Capability.RELEASE_NOTIFICATION, "A waiter is notified when a lock expires",
            "subscribe must call back when the lock expires in the store, also for a subscription made after the grant"
                    + " and for a lock renewed after the subscription (at the renewed expiry)"),
    R7_9("R7.9", Level.MUST, null, "tryAcquire does not block",
            "tryAcquire must make one store request and return; waiting is the shared client's job"),
    R7_11("R7.11", Level.MUST, null, "A hot lock keeps its throughput and every bound with a thousand local waiters",
            "local waiters of one client must coalesce (one waiting attempt per client and name); a provider whose"
                    + " acquire slows down with the number of waiters in the store, or a release that wakes every"
                    + " waiter, collapses here"),
    R7_10("R7.10", Level.MUST, Capability.RELEASE_NOTIFICATION, "Subscriptions are independent and end when closed",
            "subscribe must return a handle that removes only its own callback; other subscriptions to the name"
                    + " (other clients' waiters) must go on being called"),
    R7_12("R7.12", Level.MUST, Capability.FAIR, "A fair store keeps a freed lock for its queue, not for newcomers",
            "a tryAcquire() that does not wait must yield to the queue too: grant a free lock only to the head of its"
                    + " queue, or when nobody is queued"),
    R7_13("R7.13", Level.MUST, Capability.RELEASE_NOTIFICATION, "Every subscriber of a name is notified",
            "keep every subscription of a name and call each one (a queueing store: each one whose predecessor"
                    + " changed); a map of name to one callback keeps only the first"),
    R7_14("R7.14", Level.MUST, Capability.RELEASE_NOTIFICATION, "A woken waiter finds the lock free",
            "notify after the lock is deleted, never before: in the same atomic step after the delete (Redis: PUBLISH"
                    + " in the release script after DEL; PostgreSQL: NOTIFY in the deleting transaction)"),

    R8_1("R8.1", Level.MUST, null, "Closing a client releases its locks",
            "close must not drop the connection before the shared client's releases went out"),
    R8_2("R8.2", Level.MUST, null, "Bad input gets a clear error",
            "names and durations are validated by the shared client; a provider must not accept what it rejects"),
    R8_3("R8.3", Level.MUST, null, "Inspect shows the holder's identity and token",
            "store the encoded HolderIdentity and the token beside the lock; answer empty for a free lock"),
    R8_4("R8.4", Level.MUST, null, "Every valid name is usable, and distinct names are distinct locks",
            "escape names for the store ('/' in ZooKeeper paths, '*' or '{}' in Redis keys) injectively"),
    R8_5("R8.5", Level.MUST, null, "Generated distinct names are distinct locks",
            "key locks by the exact name: no case folding, trimming, truncation, separator mapping or hash that can"
                    + " collide (String.hashCode); a key made of a cryptographic digest needs the name stored beside"
                    + " the lock and compared"),
    R8_6("R8.6", Level.MUST, null, "Closing a client releases exactly its own holdings",
            "on close release only the client's current grants, owner-checked; never delete by name"),
    R8_7("R8.7", Level.MUST, null, "Inspect shows an expired lock as free",
            "inspect must check the expiry (or rely on the store's), not answer a stale entry"),
    R8_8("R8.8", Level.MUST, null, "The trace id reaches the store",
            "store the whole HolderIdentity, trace id included, and return it from inspect"),
    R8_11("R8.11", Level.MUST, null, "The store declares the capabilities its user expects",
            "capabilities() must list every capability the provider honours; a dropped one silently skips its rules"),
    R8_12("R8.12", Level.MUST, null, "describe() names the store",
            "describe() must answer the scheme and hosts for messages, never blank"),
    R8_13("R8.13", Level.MUST, null, "A listing matches inspect",
            "list from the same data and with the same expiry check as inspect, read every page of the store's scan,"
                    + " and match names exactly (no pattern characters)"),

    R9_11("R9.11", Level.MUST, null, "An ambiguous acquire at the SPI leaves no orphan",
            "releaseAmbiguous must remove the owner's lock or queue entry whether or not the acquire took effect"),
    R9_12("R9.12", Level.MUST, null, "An ambiguous release or renewal leaves no orphan and no false holder",
            "a failed release must leave the lock to its TTL at most; a failed renewal must not extend the"
                    + " holder's local validity"),
    R9_13("R9.13", Level.MUST, Capability.SESSION_BOUND, "The end of a session is reported to every holder on it",
            "report every grant of an ended session through ProviderContext.lossListener() as soon as the session is"
                    + " known to be gone (ZooKeeper: SUSPENDED/LOST/new session; etcd: a keep-alive answering lease not"
                    + " found), fixed leases included, then start a new session"),
    R10_1("R10.1", Level.MUST, null, "Asynchronous acquires are exclusive",
            "acquireAsync runs the same acquire and release as the blocking API; look at R1 and R2 first"),
    R10_2("R10.2", Level.MUST, null, "An asynchronous bounded wait times out and leaves nothing behind",
            "the wait's clean-up (cancel of a queue place, release of a late grant) must run when it times out"),
    R10_3("R10.3", Level.MUST, null, "Cancelling an asynchronous wait leaves nothing behind",
            "a cancelled wait must drop its queue place (cancel) and release a grant that arrives after the cancel"),
    R10_4("R10.4", Level.MUST, null, "An asynchronous waiter gets the lock when it is released",
            "the release notification (or the poll) must wake an asynchronous waiter as it wakes a thread"),

    R11_1("R11.1", Level.MUST, null, "A semaphore never has more permits held than it has, and grants all or nothing",
            "each permit is a lock of its own (NAME#permit:I): the store must keep names that differ only after '#'"
                    + " or in their last digits apart; look at R1.1 and R8.5 first"),
    R11_2("R11.2", Level.MUST, null, "Contention never exceeds the permits",
            "the permits' locks must be exclusive under a race (R1.3, R1.4)"),
    R11_3("R11.3", Level.MUST, null, "A crashed holder's permits return at their lease's end",
            "every permit lock needs its TTL (R3.1)"),
    R11_4("R11.4", Level.MUST, null, "Release by id is owner-checked",
            "a permit lease is released by its holding's owner ids only (R2.1, R2.5)"),
    R11_5("R11.5", Level.MUST, null, "A waiting acquire is served before newcomers",
            "the gate lock (NAME#permit/gate) must stay taken while its holder waits for permits; a waiter must be woken"
                    + " when a permit is freed (R7.3, R7.4)"),
    R11_6("R11.6", Level.MUST, Capability.FENCING, "Permit tokens strictly increase",
            "the gate's tokens must increase per name, across an expiry too (R5.1, R5.2)"),
    R11_7("R11.7", Level.MUST, null, "Bad input to any primitive gets a clear error",
            "validation is the shared client's: a forwarding client must not skip it"),

    R12_1("R12.1", Level.MUST, null, "Readers share up to their limit",
            "each reader holds one permit lock (NAME#rw:I); the store must keep those names apart (R8.5)"),
    R12_2("R12.2", Level.MUST, null, "A writer is alone",
            "a writer holds every permit lock of the read-write lock; look at R1.1"),
    R12_3("R12.3", Level.MUST, null, "A waiting writer keeps new readers out",
            "the gate lock (NAME#rw/gate) must stay taken while the writer waits; look at R7.3 and R7.4"),
    R12_4("R12.4", Level.MUST, null, "Downgrade keeps writers out and lets readers in",
            "a downgrade keeps one of the writer's permit locks and releases the others (R2.3)"),
    R12_5("R12.5", Level.MUST, null, "An upgrade is refused at once",
            "the shared client refuses it; a forwarding client must keep the calling thread's read leases visible"),
    R12_6("R12.6", Level.MUST, Capability.FENCING, "Tokens order readers and writers",
            "every lease's token is the gate's, which must increase per name (R5.1)"),
    R12_7("R12.7", Level.MUST, null, "A mixed workload never puts a writer beside anyone",
            "look at R12.2 and R1.4 first"),

    R13_1("R13.1", Level.MUST, null, "One leader, named by the store",
            "a term is a lock (NAME#leader) renewed without a maximum hold; look at R1.1, R6.1 and R8.3"),
    R13_2("R13.2", Level.MUST, null, "Leaving hands over to a later term",
            "leaving releases the term's lock at once (R2.3); a waiting candidate must be woken (R7.4)"),
    R13_3("R13.3", Level.MUST, null, "A term the store drops ends for its leader",
            "the term's lease must be reported lost when the store no longer has it (R6.4)"),
    R13_4("R13.4", Level.MUST, Capability.FENCING, "Terms strictly increase",
            "a term's number is its lock's fencing token (R5.1)"),
    R13_5("R13.5", Level.MUST, null, "Observers see every leader in term order, and no leader",
            "the observer reads the term's lock with inspect (R8.3, R8.7)");

    /** How strongly a rule binds. */
    public enum Level { MUST, SHOULD, MAY }

    private static final Pattern METHOD = Pattern.compile("^(required|optional)_r(\\d+)_(\\d+)_.+");

    private final String id;
    private final Level level;
    private final Capability capability;
    private final String title;
    private final String hint;

    TckRule(String id, Level level, Capability capability, String title, String hint) {
        this.id = id;
        this.level = level;
        this.capability = capability;
        this.title = title;
        this.hint = hint;
    }

    /** The rule id as the spec writes it, e.g. {@code R2.1}. */
    public String id() {
        return id;
    }

    /** MUST, SHOULD or MAY (for a store that declares the capability, when there is one). */
    public Level level() {
        return level;
    }

    /** The capability that switches this rule on, or empty for a rule every store must pass. */
    public Optional<Capability> capability() {
        return Optional.ofNullable(capability);
    }

    /** Whether every store must pass this rule. */
    public boolean isRequired() {
        return capability == null;
    }

    /** A short title. */
    public String title() {
        return title;
    }

    /** Where an implementer should look when the rule fails. */
    public String hint() {
        return hint;
    }

    /** The anchor of the rule in {@code docs/SPEC.md}, e.g. {@code r2-1}. */
    public String anchor() {
        return id.toLowerCase(Locale.ROOT).replace('.', '-');
    }

    /** The prefix of its test method, e.g. {@code required_r2_1_}. */
    public String methodPrefix() {
        return (isRequired() ? "required_" : "optional_") + id.toLowerCase(Locale.ROOT).replace('.', '_') + "_";
    }

    /** The rule whose id is {@code id} ({@code R2.1}). */
    public static Optional<TckRule> byId(String id) {
        for (TckRule rule : values()) {
            if (rule.id.equalsIgnoreCase(id)) {
                return Optional.of(rule);
            }
        }
        return Optional.empty();
    }

    /** The rule id a test method name carries ({@code required_r2_1_x} gives {@code R2.1}), or empty. */
    public static Optional<String> idOfMethod(String methodName) {
        Matcher matcher = METHOD.matcher(methodName);
        return matcher.matches() ? Optional.of("R" + matcher.group(2) + "." + matcher.group(3)) : Optional.empty();
    }

    /** The rule a test method tests, or empty. */
    public static Optional<TckRule> ofMethod(String methodName) {
        return idOfMethod(methodName).flatMap(TckRule::byId);
    }
}
