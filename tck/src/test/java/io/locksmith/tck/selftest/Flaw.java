package io.locksmith.tck.selftest;

/** A deliberate defect of the {@link ToyStore}, each one a bug seen in real lock implementations. */
enum Flaw {
    /** Release deletes whatever lock is there: a plain {@code DEL}. */
    RELEASE_WITHOUT_OWNER_CHECK,
    /** Acquire sets no TTL ({@code SETNX} without {@code EXPIRE}): a crashed holder's lock never frees. */
    ACQUIRE_WITHOUT_TTL,
    /** Acquire checks, yields, then sets: two racers can both see the lock free. */
    CHECK_THEN_SET,
    /** Declares fencing but keeps the token counter in the lock entry, so it restarts at 1 for every holder. */
    TOKEN_RESTARTS_PER_HOLDING,
    /** Renew answers true even when the store no longer has the lock: a lost lock is never reported. */
    RENEW_ALWAYS_TRUE,
    /** Renew extends whatever lock is there, even another owner's. */
    RENEW_WITHOUT_OWNER_CHECK,
    /** Cancel leaves the waiter's queue entry behind (fair store): the queue is blocked by a ghost. */
    CANCEL_LEAVES_QUEUE_ENTRY,
    /** The TTL is applied in the wrong unit: the lock expires after a twentieth of it. */
    EARLY_EXPIRY,
    /** Declares release notification but never notifies. */
    SILENT_NOTIFICATION
}
