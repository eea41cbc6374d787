package io.locksmith.zookeeper;

import io.locksmith.LockStoreException;
import io.locksmith.spi.CallDeadline;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.OpResult;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.ACL;
import org.apache.zookeeper.data.Stat;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;

/**
 * The provider's ZooKeeper requests, sent through the ZooKeeper client's asynchronous API on the current connection
 * and awaited on the calling thread until its {@link CallDeadline}, so that no provider call outlasts the
 * connection time-out whatever the ensemble does.
 *
 * <p>Why not Curator's synchronous API: each of its calls retries for as long as its retry policy allows and then
 * waits for the ZooKeeper client's own answer, which has no bound but the client's read time-out (two thirds of the
 * session time-out); a call of several requests could last several connection time-outs. Here a request whose
 * connection was lost is sent again until the deadline ({@link #retrying}), and then the caller stops waiting: what
 * the request does after that is the caller's to clean up (a late create is reaped, {@link NodeReaper}).
 *
 * <p>Requests of one session are served in the order they are sent, so a read sent right after a write, without
 * waiting for it, sees the write: the acquire sends its create and the queue read together, in one round trip.
 *
 * <p>Waits ride out interrupts: every provider call runs under a deadline, and a caller interrupted during it sees
 * the interrupt when the call returns ({@link io.locksmith.spi.LockProvider#callTimeLimit()}).
 */
final class Requests {

    /** The pause before a request whose connection was lost is sent again; the client reconnects meanwhile. */
    private static final long RETRY_PAUSE_NANOS = TimeUnit.MILLISECONDS.toNanos(100);

    private final CuratorFramework curator;
    private final Duration timeout;
    private final String store;
    private final List<ACL> acl;

    /** @param acl the ACL of every node created: the client's identity alone, or anyone's without one */
    Requests(CuratorFramework curator, Duration timeout, String store, List<ACL> acl) {
        this.curator = curator;
        this.timeout = timeout;
        this.store = store;
        this.acl = acl;
    }

    /** The handle of the client's current connection; requests sent while it reconnects wait for it. */
    ZooKeeper zooKeeper() throws Exception {
        return curator.getZookeeperClient().getZooKeeper();
    }

    /** The connection time-out: the deadline of a provider call. */
    Duration timeout() {
        return timeout;
    }

    // ---------------------------------------------------------------- sending

    /** Creates a node; the answer is its path, and {@code stat} receives its {@link Stat}. */
    CompletableFuture<String> create(String path, byte[] data, CreateMode mode, Stat stat) throws Exception {
        CompletableFuture<String> answer = new CompletableFuture<>();
        zooKeeper().create(path, data, acl, mode, (rc, p, ctx, name, created) -> {
            if (rc == KeeperException.Code.OK.intValue() && stat != null && created != null) {
                copy(created, stat);
            }
            settle(answer, rc, p, name);
        }, null);
        return answer;
    }

    /** The children of a node. */
    CompletableFuture<List<String>> children(String path) throws Exception {
        CompletableFuture<List<String>> answer = new CompletableFuture<>();
        zooKeeper().getChildren(path, false, (rc, p, ctx, children) -> settle(answer, rc, p, children), null);
        return answer;
    }

    /** A node's {@link Stat}, or null if it does not exist; {@code watcher} (may be null) is set either way. */
    CompletableFuture<Stat> exists(String path, Watcher watcher) throws Exception {
        CompletableFuture<Stat> answer = new CompletableFuture<>();
        zooKeeper().exists(path, watcher, (rc, p, ctx, stat) -> {
            if (rc == KeeperException.Code.NONODE.intValue()) {
                answer.complete(null); // an answer here: no such node
            } else {
                settle(answer, rc, p, stat);
            }
        }, null);
        return answer;
    }

    /** A node's data; {@code stat} receives its {@link Stat}. */
    CompletableFuture<byte[]> data(String path, Stat stat) throws Exception {
        CompletableFuture<byte[]> answer = new CompletableFuture<>();
        zooKeeper().getData(path, false, (rc, p, ctx, data, read) -> {
            if (rc == KeeperException.Code.OK.intValue() && stat != null && read != null) {
                copy(read, stat);
            }
            settle(answer, rc, p, data);
        }, null);
        return answer;
    }

    /** Deletes a node, whatever its version. */
    CompletableFuture<Void> delete(String path) throws Exception {
        CompletableFuture<Void> answer = new CompletableFuture<>();
        zooKeeper().delete(path, -1, (rc, p, ctx) -> settle(answer, rc, p, null), null);
        return answer;
    }

    /**
     * Reads many nodes in one request ({@code multiRead}); a missing node's result says so, the others are good.
     */
    CompletableFuture<List<OpResult>> multiRead(List<Op> reads) throws Exception {
        CompletableFuture<List<OpResult>> answer = new CompletableFuture<>();
        zooKeeper().multi(reads, (rc, p, ctx, results) -> {
            if (results != null && results.size() == reads.size()) {
                answer.complete(results);
            } else {
                answer.completeExceptionally(KeeperException.create(KeeperException.Code.get(rc)));
            }
        }, null);
        return answer;
    }

    /** Creates each missing node of {@code path} as a container (Curator: creatingParentContainersIfNeeded). */
    void createContainers(String path) throws Exception {
        // Sent together: each create is served in order, and one that finds its node there already is harmless.
        CompletableFuture<String> last = null;
        for (int slash = path.indexOf('/', 1); ; slash = path.indexOf('/', slash + 1)) {
            String ancestor = slash < 0 ? path : path.substring(0, slash);
            CompletableFuture<String> created = create(ancestor, new byte[0], CreateMode.CONTAINER, null);
            last = created;
            if (slash < 0) {
                break;
            }
        }
        try {
            await(last, "create the lock's container node", null);
        } catch (KeeperException.NodeExistsException ignored) {
            // created by another client meanwhile
        }
    }

    // ---------------------------------------------------------------- waiting

    /**
     * Waits for an answer until this thread's call deadline (at most the connection time-out), riding out
     * interrupts (the flag is set again when the wait ends).
     *
     * <p>The last slice of the deadline ({@link #refusalReserveNanos}) is kept for the {@link #refusal} check: once
     * the answer is that late, and the client has no connection, the check runs within the slice, and the wait goes
     * on for whatever it left. The check used to run after the deadline had passed, at up to 250 ms per server of the
     * connect string: against a frozen server whose listen queue had filled, every call overran its deadline by that
     * much (docs/RELIABILITY.md, "Found by the fault kit").
     *
     * @throws KeeperException    what the server answered
     * @throws LockStoreException if no answer came in time
     */
    <T> T await(CompletableFuture<T> answer, String what, String lockName) throws Exception {
        boolean interrupted = false;
        boolean refusalChecked = false;
        try {
            while (true) {
                long left = CallDeadline.remainingNanos(timeout.toNanos());
                long wait = refusalChecked ? left : Math.max(0, left - refusalReserveNanos());
                try {
                    return answer.get(wait, TimeUnit.NANOSECONDS);
                } catch (InterruptedException e) {
                    interrupted = true;
                } catch (ExecutionException e) {
                    Throwable cause = e.getCause();
                    if (cause instanceof Exception failure) {
                        throw failure;
                    }
                    throw e;
                } catch (TimeoutException e) {
                    if (!refusalChecked) {
                        refusalChecked = true;
                        LockStoreException refused = refusal(lockName, what);
                        if (refused != null) {
                            throw refused;
                        }
                        if (CallDeadline.remainingNanos(timeout.toNanos()) > 0) {
                            continue; // connected, or nothing proven: the answer may still come in time
                        }
                    }
                    throw new LockStoreException(lockName, store + " did not answer " + what + " within "
                            + timeout.toMillis() + " ms (connectionTimeout)", e);
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /**
     * The end of a call's deadline that {@link #await} keeps for the {@link #refusal} check: one server's check, or a
     * quarter of the connection time-out if that is less.
     */
    private long refusalReserveNanos() {
        return Math.min(REFUSAL_CHECK_NANOS, timeout.toNanos() / 4);
    }

    /**
     * Sends a request and waits for its answer; sends it again, after a short pause, while the connection is lost,
     * until the call deadline. Only for requests that may be repeated (reads, deletes whose {@code NONODE} the
     * caller accepts, a create whose first try the caller cleans up as an orphan).
     */
    <T> T retrying(Request<T> request, String what, String lockName) throws Exception {
        while (true) {
            try {
                return await(request.send(), what, lockName);
            } catch (KeeperException e) {
                if (!pauseBeforeRetry(e)) {
                    throw e;
                }
            }
        }
    }

    /**
     * Whether a request that met {@code failure} may be sent again: the connection was lost or the session replaced
     * (Curator's retry policy counts the same failures), and the call's deadline leaves time after a short pause,
     * which this method makes (riding out an interrupt, whose flag stays set).
     */
    boolean pauseBeforeRetry(KeeperException failure) {
        KeeperException.Code code = failure.code();
        if (code != KeeperException.Code.CONNECTIONLOSS && code != KeeperException.Code.OPERATIONTIMEOUT
                && code != KeeperException.Code.SESSIONEXPIRED && code != KeeperException.Code.SESSIONMOVED) {
            return false;
        }
        if (code == KeeperException.Code.CONNECTIONLOSS) {
            LockStoreException refused = refusal(null, "a request");
            if (refused != null) {
                throw refused;
            }
        }
        long left = CallDeadline.remainingNanos(timeout.toNanos());
        if (left <= RETRY_PAUSE_NANOS) {
            return false;
        }
        boolean interrupted = Thread.interrupted();
        LockSupport.parkNanos(RETRY_PAUSE_NANOS);
        if (interrupted || Thread.interrupted()) {
            Thread.currentThread().interrupt();
        }
        return true;
    }

    /**
     * The longest the check of {@link #refusal} waits for one server's TCP handshake: a refusal is immediate. Within
     * a call, never beyond its deadline.
     */
    private static final long REFUSAL_CHECK_NANOS = TimeUnit.MILLISECONDS.toNanos(250);

    /**
     * The error to report when the client has no connection and every server of its connect string refuses a TCP
     * connection now, with the refusal as its cause; null otherwise (connected, a server that accepts, or one that
     * does not answer at all, which is no proof of anything).
     *
     * <p>Why: the ZooKeeper client reconnects on its own and reports only {@code ConnectionLoss}, without a cause,
     * so a dead ensemble looked like a slow one and every caller waited for its whole bound. A refused connection says
     * the servers are not there now; the shared client then fails calls fast until its probe finds them back
     * (SPEC R9.14). Only while disconnected, so a connected client pays nothing.
     *
     * <p>Each server's check ends by this thread's call deadline: a frozen server (SIGSTOP, a hung host) whose listen
     * queue is full neither accepts nor refuses, and its check lasts its whole time-out. What the deadline leaves no
     * time for is not checked (nothing proven).
     */
    LockStoreException refusal(String lockName, String what) {
        if (curator.getZookeeperClient().isConnected()) {
            return null;
        }
        java.net.ConnectException refused = null;
        for (String server : curator.getZookeeperClient().getCurrentConnectionString().split(",")) {
            String hostPort = server.strip();
            int slash = hostPort.indexOf('/');
            if (slash >= 0) {
                hostPort = hostPort.substring(0, slash); // a chroot after the last server
            }
            int colon = hostPort.lastIndexOf(':');
            if (hostPort.isEmpty() || colon <= 0) {
                return null;
            }
            // At least a millisecond: a connect time-out of 0 would wait for ever.
            long checkMillis = TimeUnit.NANOSECONDS.toMillis(CallDeadline.remainingNanos(REFUSAL_CHECK_NANOS));
            if (checkMillis < 1) {
                return null; // the call's deadline has passed: no time to prove anything
            }
            try (java.net.Socket socket = new java.net.Socket()) {
                socket.connect(new java.net.InetSocketAddress(hostPort.substring(0, colon),
                        Integer.parseInt(hostPort.substring(colon + 1))), (int) checkMillis);
                return null; // a server takes connections: not an outage
            } catch (java.net.ConnectException e) {
                refused = e;
            } catch (java.io.IOException | RuntimeException e) {
                return null; // no answer, or a name that does not resolve now: nothing proven
            }
        }
        if (refused == null) {
            return null;
        }
        return new LockStoreException(lockName, store + ": no connection for " + what + ", and every server refuses"
                + " connections (" + curator.getZookeeperClient().getCurrentConnectionString() + ")", refused);
    }

    /** One request, sent anew by each try of {@link #retrying}. */
    @FunctionalInterface
    interface Request<T> {
        CompletableFuture<T> send() throws Exception;
    }

    /** Runs {@code call} under one deadline of the connection time-out (or the outer call's, if there is one). */
    <T> T within(Supplier<T> call) {
        return CallDeadline.within(timeout, call);
    }

    /** Completes {@code answer} with {@code value} if the server answered OK, or with the server's error for {@code path}. */
    private static <T> void settle(CompletableFuture<T> answer, int rc, String path, T value) {
        if (rc == KeeperException.Code.OK.intValue()) {
            answer.complete(value);
        } else {
            answer.completeExceptionally(KeeperException.create(KeeperException.Code.get(rc), path));
        }
    }

    private static void copy(Stat from, Stat to) {
        to.setCzxid(from.getCzxid());
        to.setMzxid(from.getMzxid());
        to.setCtime(from.getCtime());
        to.setMtime(from.getMtime());
        to.setVersion(from.getVersion());
        to.setCversion(from.getCversion());
        to.setAversion(from.getAversion());
        to.setEphemeralOwner(from.getEphemeralOwner());
        to.setDataLength(from.getDataLength());
        to.setNumChildren(from.getNumChildren());
        to.setPzxid(from.getPzxid());
    }
}
