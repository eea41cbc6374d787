package io.locksmith.zookeeper;

import io.locksmith.LockStoreException;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.data.ACL;
import org.apache.zookeeper.data.Id;

import java.util.List;
import java.util.stream.Collectors;

/**
 * Whether this client's identity may use the lock nodes under its base path, checked when the client opens, so that a
 * wrong user or password (ZooKeeper's digest authentication never refuses a login: a wrong password is simply another
 * identity) or a base path owned by another application fails at once, naming what to fix, instead of at the first
 * lock.
 */
final class AccessCheck {

    /** The rights a client needs on its base path: make, list and remove lock nodes. */
    private static final int NEEDED = ZooDefs.Perms.CREATE | ZooDefs.Perms.DELETE | ZooDefs.Perms.READ;

    private AccessCheck() {
    }

    /**
     * Reads the ACL of the base path (one request) and checks that it grants this client's identity what it needs.
     * A base path that does not exist yet passes: the client creates it with its own ACL.
     *
     * @return whether the locks under the base path are this identity's alone (capability {@code ACCESS_CONTROL}):
     *         the client authenticates, and nobody else may create or delete nodes in the base path (a path made by a
     *         client without credentials lets anyone make a lock's container first, open to all)
     * @throws LockStoreException naming the store, the user (never the password) and what to change
     */
    static boolean check(CuratorFramework curator, ZooKeeperSettings settings) throws Exception {
        List<ACL> acl;
        try {
            acl = curator.getACL().forPath(settings.basePath());
        } catch (KeeperException.NoNodeException e) {
            return settings.credentials() != null;
        } catch (KeeperException.NoAuthException e) {
            throw new LockStoreException(notAuthorized(settings, "read the ACL of " + settings.basePath(), e), e);
        }
        int granted = 0;
        boolean othersMayChange = false;
        String mine = settings.credentials() == null ? null : settings.credentials().digestId();
        for (ACL entry : acl) {
            Id id = entry.getId();
            boolean anyone = id.getScheme().equals("world") && id.getId().equals("anyone");
            boolean me = mine != null && id.getScheme().equals("digest") && id.getId().equals(mine);
            if (anyone || me) {
                granted |= entry.getPerms();
            }
            if (!me && (entry.getPerms() & (ZooDefs.Perms.CREATE | ZooDefs.Perms.DELETE)) != 0) {
                othersMayChange = true;
            }
        }
        if ((granted & NEEDED) != NEEDED) {
            throw new LockStoreException(settings.describe() + ": the base path " + settings.basePath()
                    + " does not let " + identity(settings) + " create, list and delete lock nodes (it grants "
                    + owners(acl) + "); " + remedy(settings), null);
        }
        return mine != null && !othersMayChange;
    }

    /** The message of a request the server refused for want of rights. */
    static String notAuthorized(ZooKeeperSettings settings, String action, KeeperException e) {
        return settings.describe() + " refused to " + action + " (" + e.code() + (e.getPath() == null ? ""
                : " on " + e.getPath()) + "): the node belongs to another ZooKeeper identity than "
                + identity(settings) + "; " + remedy(settings);
    }

    private static String identity(ZooKeeperSettings settings) {
        return settings.credentials() == null ? "this unauthenticated client"
                : "user '" + settings.credentials().user() + "' (ZooKeeper digest)";
    }

    private static String remedy(ZooKeeperSettings settings) {
        return "check the URI's user and password (a wrong password is another identity, not a refused login), or"
                + " give this application a base path of its own" + (settings.credentials() == null
                ? " (nodes made by a client with 'user:password@' are that user's alone)" : "");
    }

    /** Who the ACL names, by scheme and user (a digest id's hash left out). */
    private static String owners(List<ACL> acl) {
        return acl.stream().map(entry -> {
            Id id = entry.getId();
            String who = id.getScheme().equals("digest") ? "digest user '" + id.getId().split(":", 2)[0] + "'"
                    : id.getScheme() + ":" + id.getId();
            return who + " " + perms(entry.getPerms());
        }).collect(Collectors.joining(", "));
    }

    private static String perms(int perms) {
        StringBuilder letters = new StringBuilder();
        letters.append((perms & ZooDefs.Perms.READ) != 0 ? 'r' : '-');
        letters.append((perms & ZooDefs.Perms.WRITE) != 0 ? 'w' : '-');
        letters.append((perms & ZooDefs.Perms.CREATE) != 0 ? 'c' : '-');
        letters.append((perms & ZooDefs.Perms.DELETE) != 0 ? 'd' : '-');
        letters.append((perms & ZooDefs.Perms.ADMIN) != 0 ? 'a' : '-');
        return letters.toString();
    }
}
