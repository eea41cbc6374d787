package io.locksmith.zookeeper;

import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.KeeperException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Deletes the lock nodes a provider gives up (released, lost, cancelled, orphaned), so that none stays taken for
 * as long as its session lives.
 *
 * <p>A node whose deletion could not be confirmed stays pending and is sent again {@value #DELETE_RETRY_MILLIS} ms
 * after a failed answer and at every reconnection ({@link #retryPending}), until the server says it is deleted,
 * gone ({@code NONODE}) or gone with its session ({@code SESSIONEXPIRED}: an ephemeral node ends with it).
 *
 * <p>Why not Curator's {@code delete().guaranteed()}: it keeps failed deletions in Curator's own
 * {@code FailedDeleteManager} and retries them on Curator's schedule, with no way for the provider to see what is
 * still pending, to retry at its own RECONNECTED handling (where the lease bookkeeping of the new session is
 * done), or to stop treating a node as pending once its session has expired. Several callers here run on
 * watcher and timer threads that must never block on a connection that is down, so every deletion they ask for is
 * fire-and-forget with the bookkeeping above; switching to {@code guaranteed()} would change when nodes of a lost
 * lock go during a partition, which the ZooKeeper fault tests pin down.
 */
final class NodeReaper {

    private static final Logger LOG = LoggerFactory.getLogger(NodeReaper.class);
    /** How soon a deletion that failed for a connection problem is sent again. */
    private static final long DELETE_RETRY_MILLIS = 500;

    private final CuratorFramework curator;
    private final Requests requests;
    private final ScheduledExecutorService timers;
    /** Nodes to delete that the server has not confirmed deleted yet (sent while the connection was down). */
    private final Set<String> pendingDeletes = ConcurrentHashMap.newKeySet();

    NodeReaper(CuratorFramework curator, Requests requests, ScheduledExecutorService timers) {
        this.curator = curator;
        this.requests = requests;
        this.timers = timers;
    }

    /** Deletes a node and waits for it, within the call's deadline ({@link Requests}). */
    void deleteIfExists(String path) throws Exception {
        try {
            requests.retrying(() -> requests.delete(path), "delete " + path, null);
        } catch (KeeperException.NoNodeException ignored) {
            // gone already
        }
    }

    /**
     * Deletes a node and waits for it, within the call's deadline; if the store cannot be reached in time, the
     * deletion is left to {@link #deleteInBackground}, so the node goes as soon as the connection is back, or with
     * its session. An interrupt does not cut it short (the wait rides it out, {@link Requests#await}).
     */
    void deleteNow(String path) {
        try {
            deleteIfExists(path);
        } catch (KeeperException.NoNodeException ignored) {
            // gone already
        } catch (Exception e) {
            LOG.debug("deleting {} failed; trying again in the background", path, e);
            deleteInBackground(path);
        }
    }

    /**
     * Deletes a node without waiting. Until the server confirms it (or says it is gone), the path stays in
     * {@link #pendingDeletes} and is tried again on every reconnection: a lock reported lost while the
     * connection was down must not stay taken for as long as the session lives.
     */
    void deleteInBackground(String path) {
        pendingDeletes.add(path);
        try {
            curator.delete().inBackground((client, event) -> {
                int code = event.getResultCode();
                LOG.debug("background deletion of {}: {}", path, KeeperException.Code.get(code));
                if (code == KeeperException.Code.OK.intValue() || code == KeeperException.Code.NONODE.intValue()
                        || code == KeeperException.Code.SESSIONEXPIRED.intValue()) {
                    pendingDeletes.remove(path); // deleted, or gone with its session
                } else {
                    retryDeleteLater(path);
                }
            }).forPath(path);
        } catch (Exception e) {
            LOG.debug("could not send the deletion of {}; tried again on reconnection", path, e);
        }
    }

    private void retryDeleteLater(String path) {
        try {
            timers.schedule(() -> {
                if (pendingDeletes.contains(path)) {
                    deleteInBackground(path);
                }
            }, DELETE_RETRY_MILLIS, TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException closed) {
            // the provider is closing: its session ends, and its nodes with it
        }
    }

    /** Sends every deletion not confirmed yet again: called when the connection is back. */
    void retryPending() {
        for (String path : new ArrayList<>(pendingDeletes)) {
            deleteInBackground(path);
        }
    }
}
