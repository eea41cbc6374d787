package io.locksmith.tck;

import java.time.Duration;
import java.util.Optional;

/**
 * A session on the store under test that speaks the store's own commands, not Locksmith's, as one
 * {@link Identity}: what rule R2.6 attacks a held lock with (the hook {@code LockTck.rawStoreSession(Identity)}).
 * Each method makes the strongest attempt the store's commands allow on every record of one lock (Redis: the
 * lock's keys; ZooKeeper: its container and nodes; etcd: its keys under the prefix and the holder's lease;
 * PostgreSQL: its row), as a program with that identity's credentials would.
 *
 * <p>A refused command throws whatever the store's client throws (NOAUTH, NOPERM, permission denied): the kit
 * records it and judges by the effect alone, so a method must not catch the store's refusal. The kit closes every
 * session it gets.
 */
public interface RawStoreSession extends AutoCloseable {

    /** Who a raw session is. */
    enum Identity {
        /**
         * The application's own credentials, those of {@code storeUri()}: the kit's control. Its {@link #delete}
         * must free the lock and its {@link #read} must show the holder, or the hook does not reach the lock's
         * records and the rule cannot judge the others.
         */
        APPLICATION,
        /** Another user of the store (another ACL user, digest identity, role), with its own correct password. */
        OTHER_USER,
        /** The application's user with a wrong password (on ZooKeeper, simply another digest identity). */
        WRONG_PASSWORD,
        /** No credentials at all. */
        NO_CREDENTIALS
    }

    /** Deletes every record of lock {@code lockName}: the strongest release (Redis {@code DEL}, a ZooKeeper node's delete). */
    void delete(String lockName) throws Exception;

    /**
     * Makes the records of lock {@code lockName} live {@code ttl} from now, whoever holds them (Redis {@code PEXPIRE},
     * a row's expiry updated, a put with a lease of its own, the holder's lease kept alive).
     */
    void extend(String lockName, Duration ttl) throws Exception;

    /** Writes a holding of its own for {@code lockName}: overwrites the holder's record, or queues a node behind it. */
    void takeOver(String lockName) throws Exception;

    /** What this session can read of lock {@code lockName}'s records, as text; empty if there is nothing to read. */
    Optional<String> read(String lockName) throws Exception;
}
