package io.locksmith.examples.memcached;

import io.locksmith.tck.server.ServerProcess;

import java.time.Duration;

/** What the example's tests do to a memcached behind the provider's back. */
final class MemcachedTestServers {

    private MemcachedTestServers() {
    }

    /** Deletes the item of {@code lockName}, as the server's own expiry would. */
    static void deleteLock(ServerProcess server, String lockName) {
        try (MemcachedConnections admin = new MemcachedConnections("127.0.0.1", server.port(), Duration.ofSeconds(5))) {
            String status = admin.call(lockName, "md " + MemcachedLockProvider.keyOf(lockName), null).status();
            if (!status.equals("HD") && !status.equals("NF")) {
                throw new IllegalStateException("memcached answered " + status + " to the delete of lock '" + lockName + "'");
            }
        }
    }
}
