package io.locksmith.tck.selftest;

import io.locksmith.tck.TckRule;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.text.Normalizer;
import java.util.List;
import java.util.Locale;
import java.util.function.UnaryOperator;

import static io.locksmith.tck.TckRule.*;

/**
 * One realistic single-bug backend each, built as a decorator over {@code mem://} ({@link MutantProvider}), with
 * the rules that must catch it every time. {@link #NO_OP} and {@link #LATENCY_ONLY} are the controls: they
 * change nothing a client can rely on and must pass the whole kit.
 */
enum Mutant {
    // Controls
    NO_OP(List.of()),
    LATENCY_ONLY(List.of()),

    // Names: the store key is not the exact name (R8)
    CASE_FOLDING(List.of(R8_5), name -> name.toLowerCase(Locale.ROOT)),
    TRIMMING(List.of(R8_5), String::strip),
    COLLAPSES_WHITESPACE(List.of(R8_5), name -> name.replaceAll("\\s+", " ")),
    TRUNCATES_AT_255(List.of(R8_5), name -> name.length() > 255 ? name.substring(0, 255) : name),
    TRUNCATES_AT_500(List.of(R8_5), name -> name.length() > 500 ? name.substring(0, 500) : name),
    SLASH_TO_UNDERSCORE(List.of(R8_5), name -> name.replace('/', '_')),
    PERCENT_DECODES(List.of(R8_5), Mutant::percentDecoded),
    DROPS_NON_ASCII(List.of(R8_5), name -> name.replaceAll("[^\\x00-\\x7F]", "")),
    NFKC_NORMALIZES(List.of(R8_5), name -> Normalizer.normalize(name, Normalizer.Form.NFKC)),
    KEYED_BY_HASH(List.of(R8_5), name -> "h" + name.hashCode()),
    REJECTS_NAMES_OVER_255(List.of(R8_4)),
    // A store that reads '#' as the start of a key's namespace suffix and keys by what comes before it: the store locks
    // of one primitive (its permits, its gate) become one lock.
    KEYS_END_AT_HASH(List.of(R11_1, R11_2, R12_1, R12_2, R12_7),
            name -> name.indexOf('#') > 0 ? name.substring(0, name.indexOf('#')) : name),

    // Exclusion (R1)
    DOUBLE_GRANT_ONE_IN_500(List.of(R1_5)),
    DOUBLE_GRANT_ONE_IN_1000(List.of(R1_5)),
    CHECK_THEN_SET(List.of(R1_3)),
    GRANTS_TO_ANY_THREAD_OF_THE_HOLDING_CLIENT(List.of(R4_2)),

    // Ownership (R2)
    RELEASE_WITHOUT_OWNER_CHECK(List.of(R2_1)),
    RELEASE_BY_CLIENT_ID(List.of(R2_5)),
    RENEW_WITHOUT_OWNER_CHECK(List.of(R2_2)),
    RENEW_BY_CLIENT_ID(List.of(R2_5)),
    ONE_OWNER_ID_PER_CLIENT(List.of(R2_5)),
    INSPECT_CACHES_THE_HOLDER(List.of(R2_4)),
    RELEASE_FREES_LATER(List.of(R2_3, R4_3)),

    // Expiry (R3)
    NO_TTL(List.of(R3_1, R11_3)),
    TTL_IN_WRONG_UNIT(List.of(R3_2)),
    TTL_ROUNDED_DOWN_TO_SECONDS(List.of(R3_3)),
    CLOCK_200MS_EARLY(List.of(R3_3)),
    TTL_ROUNDED_UP_SILENTLY(List.of(R3_3)),
    VALIDITY_LONGER_THAN_TTL(List.of(R3_3)),
    EFFECTIVE_TTL_ROUNDS_DOWN(List.of(R3_3)),
    TTL_IN_INT_MICROSECONDS(List.of(R3_11)),

    // Re-entry and inspect (R4, R8)
    INSPECT_TOKEN_OFF_BY_ONE(List.of(R4_1, R8_3, R13_1)),
    INSPECT_LOSES_THE_THREAD(List.of(R8_3)),

    // Fencing (R5)
    TOKEN_RESTARTS_PER_HOLDING(List.of(R5_1, R11_6, R12_6, R13_4)),
    TOKEN_RESTARTS_AFTER_EXPIRY(List.of(R5_2)),
    TOKENS_SHARED_BY_PAIRS(List.of(R5_3)),

    // Renewal and loss (R6)
    RENEW_ALWAYS_TRUE(List.of(R6_4, R13_3)),
    RENEW_DOES_NOT_EXTEND(List.of(R6_1)),
    RENEW_ADDS_THE_TTL(List.of(R6_7)),
    RENEW_SETS_THE_DEFAULT_LEASE(List.of(R6_3, R6_7)),
    FIXED_VALIDITY_TEN_TIMES_THE_TTL(List.of(R6_5)),
    RELEASE_ALWAYS_TRUE(List.of(R6_8, R1_5)),
    // Removes the owner's lock and answers false: every clean close is reported as a loss.
    RELEASE_ANSWERS_FALSE(List.of(R6_8)),
    // Declares SESSION_BOUND; when its session ends the store frees its locks at once and the provider tells each
    // holder only at its next heartbeat, granting meanwhile (the ZooKeeper partition bug's shape, at the SPI).
    SESSION_LOSS_REPORTED_AFTER_THE_STORE_FREES(List.of(R6_9)),
    BATCH_ANSWERS_REVERSED(List.of(R6_6)),
    BATCH_USES_THE_FIRST_TTL(List.of(R6_6)),
    BATCH_ALWAYS_TRUE(List.of(R6_6)),

    // Waiting (R7)
    TRY_ACQUIRE_BLOCKS(List.of(R7_9)),
    // A waiting attempt that blocks in the driver: the shared client keeps the caller's bound (it runs provider
    // calls on its own threads), so what the user sees is a handoff seconds late.
    WAIT_ATTEMPT_BLOCKS_FOR_SECONDS(List.of(R7_4)),
    // A queueing store whose cancel leaves the timed-out or interrupted waiter at the head of the queue. (A driver
    // that swallows interrupts is no longer a mutant the kit can see: the shared client waits for provider calls
    // on its own threads, so the caller's interrupt always ends the wait.)
    CANCEL_LEAVES_THE_QUEUE_PLACE(List.of(R7_1, R7_2)),
    WAITERS_NEVER_GET_IT(List.of(R7_3, R11_5, R12_3, R13_2)),
    NEVER_NOTIFIES(List.of(R7_4, R7_8)),
    // Fires for the first change after subscribing only: R7.4 holds the waiter before the store while the holder
    // takes the lock back, so every wait sees several releases on one subscription.
    NOTIFIES_ONCE_PER_SUBSCRIPTION(List.of(R7_4)),
    NOTIFIES_ONLY_ON_RELEASE(List.of(R7_4, R7_8)),
    // Expiry notices timed at the TTL seen at the grant or the subscription, not moved by a renewal: the notice
    // finds the renewed lock still held and gives up, and the renewed lock's expiry is never told.
    EXPIRY_NOTICE_IGNORES_RENEWALS(List.of(R7_8)),
    // One store-side subscription per name behind every handle: the first subscriber to leave ends them all.
    UNSUBSCRIBE_ENDS_EVERY_SUBSCRIPTION(List.of(R7_10)),
    // A handle that does nothing: closed subscriptions keep being called (and pile up).
    SUBSCRIPTION_NEVER_ENDS(List.of(R7_10)),
    // Declares FAIR and queues its waiters, but checks the queue for waiting attempts only: a tryAcquire() that does
    // not wait takes a freed lock ahead of the queue whenever it comes before the head's next attempt.
    NEWCOMERS_BARGE_AHEAD_OF_THE_QUEUE(List.of(R7_12)),
    // Each event reaches the earliest live subscription of a name only.
    NOTIFIES_ONLY_THE_FIRST_SUBSCRIBER(List.of(R7_13)),
    // A release that publishes, then deletes the lock one round trip later: a waiter that tries at once finds the lock
    // taken, and no notice follows the delete.
    NOTIFIES_BEFORE_IT_DELETES(List.of(R7_14)),

    // Lifecycle and inspection (R8)
    CLOSE_DROPS_PENDING_RELEASES(List.of(R8_1)),
    CLOSE_DELETES_EVERY_NAME_IT_LOCKED(List.of(R8_6)),
    INSPECT_SHOWS_EXPIRED_LOCKS(List.of(R8_7)),
    // The listing reads the lock records without their expiry (inspect is right): expired, unreleased locks are listed.
    LISTING_SHOWS_EXPIRED_LOCKS(List.of(R8_13)),
    // The listing returns the first page of its scan only (10 names), and leaves out the rest.
    LISTING_READS_ONE_PAGE(List.of(R8_13)),
    DROPS_THE_TRACE_ID(List.of(R8_8)),
    // A refactoring lost RELEASE_NOTIFICATION from capabilities(): its rules are skipped, not failed.
    FORGETS_RELEASE_NOTIFICATION(List.of(R8_11)),
    BLANK_DESCRIPTION(List.of(R8_12)),

    // Faults at the SPI (R9)
    RELEASE_AMBIGUOUS_DOES_NOTHING(List.of(R9_11)),
    // Declares SESSION_BOUND; when its session ends (MutantTck.endStoreSession) the store drops the session's
    // locks, and the provider tells nobody: its holders learn at their next renewal, or never (a fixed lease).
    SESSION_LOSS_NEVER_REPORTED(List.of(R9_13));

    private final List<TckRule> caughtBy;
    private final UnaryOperator<String> key;

    Mutant(List<TckRule> caughtBy) {
        this(caughtBy, UnaryOperator.identity());
    }

    Mutant(List<TckRule> caughtBy, UnaryOperator<String> key) {
        this.caughtBy = caughtBy;
        this.key = key;
    }

    /** The rules that must fail against this mutant, every run; empty for a control. */
    List<TckRule> caughtBy() {
        return caughtBy;
    }

    boolean isControl() {
        return caughtBy.isEmpty();
    }

    /** The key the mutant's store uses for a lock name. */
    String key(String name) {
        return key.apply(name);
    }

    private static String percentDecoded(String name) {
        try {
            return URLDecoder.decode(name.replace("+", "%2B"), StandardCharsets.UTF_8);
        } catch (IllegalArgumentException e) {
            return name;
        }
    }
}
