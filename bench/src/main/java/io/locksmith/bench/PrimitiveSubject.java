package io.locksmith.bench;

import java.time.Duration;

/**
 * A client's own semaphore, read-write lock or leader election (issue 32): Locksmith's primitives, or the peer's that
 * a team would use directly (Redisson, Curator, jetcd). Not every client has every primitive: jetcd has an election
 * and neither of the others, Redisson no election; a scenario runs only the subjects that have its primitive
 * ({@link Subjects}). The lock scenarios never run these subjects: {@link #open(int)} is refused.
 */
interface PrimitiveSubject extends Subject {

    /** A primitive subject takes no plain lock. */
    @Override
    default Contender open(int threads) {
        throw new UnsupportedOperationException(label() + " is measured in the primitives scenarios only");
    }

    /** Whether its clients can be {@linkplain Primitives#cutOff() cut off}: opened through a proxy each. */
    default boolean canCutOff() {
        return false;
    }

    /** Opens one client, as one application process would: its own connections. */
    Primitives openPrimitives() throws Exception;

    /**
     * One client of a primitive subject. Thread-safe. A held permit lease or read or write lock is released by the
     * thread that acquired it, as thread-bound clients (Curator, Redisson) need.
     */
    interface Primitives extends AutoCloseable {

        /**
         * Acquires {@code permits} permits of the semaphore {@code name}, which has {@code size} permits in all.
         *
         * @throws java.util.concurrent.TimeoutException if they were not acquired within {@code maxWait}
         */
        default Held acquirePermits(String name, int size, int permits, Duration maxWait) throws Exception {
            throw new UnsupportedOperationException("no semaphore");
        }

        /**
         * Acquires the read lock of the read-write lock {@code name}.
         *
         * @throws java.util.concurrent.TimeoutException if it was not acquired within {@code maxWait}
         */
        default Held acquireRead(String name, Duration maxWait) throws Exception {
            throw new UnsupportedOperationException("no read-write lock");
        }

        /**
         * Acquires the write lock of the read-write lock {@code name}.
         *
         * @throws java.util.concurrent.TimeoutException if it was not acquired within {@code maxWait}
         */
        default Held acquireWrite(String name, Duration maxWait) throws Exception {
            throw new UnsupportedOperationException("no read-write lock");
        }

        /**
         * Joins the election {@code name} as a candidate, without waiting to be elected. {@code onElected} runs, on
         * one of the client's threads and without blocking, each time this candidate becomes leader. Closing this
         * client ends the candidacy and, if it leads, the term: as an application that shuts down does.
         */
        default void campaign(String name, Runnable onElected) throws Exception {
            throw new UnsupportedOperationException("no leader election");
        }

        /**
         * Cuts this client off the store without closing anything, as a crash or a partition of its process would:
         * from now on nothing it sends arrives and nothing comes back, so it renews and releases nothing, and what it
         * holds ends when its lease (or session) runs out in the store. Only clients opened through a proxy can be cut
         * off ({@link Subjects} opens the election's that way).
         */
        default void cutOff() {
            throw new UnsupportedOperationException("this client was not opened through a proxy");
        }

        /** Closes the client: what it holds is released and its leader term, if any, ends. */
        @Override
        void close() throws Exception;
    }

    /**
     * A plain label, store and kind: what every primitive subject shares; and, if it was given the store's port, a
     * proxy per client ({@link #proxyPort()}), so that the client can be {@linkplain Primitives#cutOff() cut off}.
     */
    abstract class Base implements PrimitiveSubject {
        private final String label;
        private final Store store;
        private final int storePort;

        Base(String label, Store store) {
            this(label, store, 0);
        }

        /** @param storePort the store's port, which each client then reaches through a proxy of its own; 0: directly */
        Base(String label, Store store, int storePort) {
            this.label = label;
            this.store = store;
            this.storePort = storePort;
        }

        /**
         * Closes a client opened through {@code proxy} (null: directly) with {@code close}: a cut-off client's proxy
         * first, so that its close fails at once instead of waiting on a silent store, and the proxy in any case.
         */
        static void closeThrough(io.locksmith.tck.fault.TcpProxy proxy, boolean cutOff, Scenarios.ThrowingRunnable close)
                throws Exception {
            if (proxy != null && cutOff) {
                proxy.close();
            }
            try {
                close.run();
            } finally {
                if (proxy != null) {
                    proxy.close();
                }
            }
        }

        /** Blackholes {@code proxy}: see {@link Primitives#cutOff()}. */
        void cutOff(io.locksmith.tck.fault.TcpProxy proxy) {
            if (proxy == null) {
                throw new UnsupportedOperationException(label + " was not opened through a proxy");
            }
            proxy.blackhole();
        }

        @Override
        public boolean canCutOff() {
            return storePort != 0;
        }

        /** A proxy to the store for one client, or null if this subject's clients connect directly. */
        io.locksmith.tck.fault.TcpProxy proxy() {
            return storePort == 0 ? null : io.locksmith.tck.fault.TcpProxy.start("127.0.0.1", storePort);
        }

        @Override
        public String label() {
            return label;
        }

        @Override
        public Store store() {
            return store;
        }

        @Override
        public boolean isLocksmith() {
            return false;
        }
    }
}
