package io.locksmith.etcd;

import io.locksmith.LockClient;
import io.locksmith.tck.fault.OutageFaultTck;
import io.locksmith.tck.server.ServerProcess;
import io.locksmith.tck.server.StoreServers;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * The outage rules (R9.14, R9.15) on one etcd member, killed with SIGKILL and restarted on its port and data
 * directory. jetcd's requests fail fast with {@code UNAVAILABLE} caused by the refused connection only because the
 * provider turns off gRPC's wait-for-ready and jetcd's own retries (issue 29: with them, a dead etcd looked like a
 * busy lock to a short wait, and a long wait took its whole bound). R9.15 found that a finished wait's cancel, lost
 * while etcd was down, left the waiter's queue key ahead of everyone under the client's live shared lease: nobody got
 * the lock after the restart until the client closed. The shared client now sends such clean-ups again until a store
 * that applies no TTL answers them.
 */
class EtcdOutageFaultTest extends OutageFaultTck {

    static ServerProcess etcd;

    @BeforeAll
    static void startEtcd() {
        etcd = StoreServers.etcd();
    }

    @AfterAll
    static void stopEtcd() {
        etcd.close();
    }

    @Override
    protected LockClient newClient() {
        return LockClient.open("etcd://127.0.0.1:" + etcd.port() + "?timeout=1s");
    }

    @Override
    protected io.locksmith.tck.TckTiming timing() {
        // A slack of 5 s: gRPC reconnects on its own back-off, which the provider ends when a member accepts again.
        return io.locksmith.tck.TckTiming.defaults().scaledBy(2.5);
    }

    @Override
    protected void killStore() {
        etcd.kill();
    }

    @Override
    protected void restartStore() {
        etcd.restart();
    }
}
