package io.locksmith.bench;

import java.time.Duration;
import java.util.concurrent.TimeoutException;

/**
 * One way of taking a lock that the bench measures: a raw client used directly (Jedis, Redisson, Curator,
 * jetcd) or Locksmith over a store. A subject opens {@link Contender}s, each standing for one client process.
 */
public interface Subject {

    /** How the subject is used in the tables, e.g. {@code Redisson RLock}. */
    String label();

    Store store();

    /** Whether this is Locksmith (the one being judged) or a client a team would use directly. */
    boolean isLocksmith();

    /**
     * The plain Redis commands (lower case, as {@code INFO commandstats} names them) this subject sends for each lock
     * operation besides scripts, for {@link RedisServerCost}: e.g. {@code set} for the minimal protocol. None by default:
     * Locksmith and Redisson's locks send scripts only.
     */
    default java.util.Set<String> redisCommandsSent() {
        return java.util.Set.of();
    }

    /**
     * Opens one client, as one application process would: its own connections, shared by {@code threads}
     * threads.
     */
    Contender open(int threads) throws Exception;

    /** One client of a subject. Thread-safe. */
    interface Contender extends AutoCloseable {

        /**
         * Acquires the named lock, waiting at most {@code maxWait}.
         *
         * @throws TimeoutException if it was not acquired in time
         */
        Held acquire(String name, Duration maxWait) throws Exception;

        @Override
        void close() throws Exception;
    }

    /** A held lock. Released by the thread that acquired it, as thread-bound clients (Curator, Redisson) need. */
    interface Held {
        void release() throws Exception;

        /**
         * Whether the client still considers the lock held, if it can say so without asking the store:
         * empty for clients with no such local notion.
         */
        default java.util.Optional<Boolean> stillHeld() {
            return java.util.Optional.empty();
        }
    }
}
