package io.locksmith.examples.memcached;

import io.locksmith.LockClient;
import io.locksmith.tck.TckTiming;
import io.locksmith.tck.fault.FaultRule;
import io.locksmith.tck.fault.DeploymentShape;
import io.locksmith.tck.fault.LockFaultTck;
import io.locksmith.tck.fault.TcpProxy;
import io.locksmith.tck.server.ServerProcess;
import io.locksmith.tck.server.StoreServers;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

import java.util.Map;

/**
 * The fault-kit class of the worked example (docs/TCK.md, "Writing a backend"): real faults against one memcached.
 * Holders in child JVMs are killed (-9) and frozen (SIGSTOP) past their lease (R9.1 to R9.3); a {@link TcpProxy} in
 * front of the server cuts a client off, loses replies and makes the server silent (R9.4, R9.5, R7.7, R8.10). The
 * rules for deployments of several nodes are listed in {@link #rulesNotRunHere()} with the reason, so every skip says
 * why.
 */
class MemcachedFaultTckTest extends LockFaultTck {

    static ServerProcess server;

    @BeforeAll
    static void startServer() {
        server = StoreServers.memcached();
    }

    @AfterAll
    static void stopServer() {
        if (server != null) {
            server.close();
        }
    }

    private static String uri() {
        return "memcached://127.0.0.1:" + server.port();
    }

    @Override
    protected LockClient newClient() {
        return LockClient.open(uri());
    }

    /** One memcached: the node-kill, failover and partition rules do not apply. */
    @Override
    protected DeploymentShape deploymentShape() {
        return DeploymentShape.singleNode();
    }

    /** R9.19: SIGKILL and a new process on the same port; memcached keeps nothing, so every lock is gone. */
    @Override
    protected void restartStore() {
        server.restart();
    }

    /** The victim JVM runs with this JVM's class path, so it finds the factory through ServiceLoader too. */
    @Override
    protected String victimUri() {
        return uri();
    }

    /** The one node: cutting the proxy in front of it cuts a client off the store. */
    @Override
    protected String proxiedAddress() {
        return "127.0.0.1:" + server.port();
    }

    /** A command time-out far below the short lease, so that a call to a silent server fails in time. */
    @Override
    protected String uriThrough(TcpProxy proxy) {
        return "memcached://127.0.0.1:" + proxy.port() + "?timeout=300ms";
    }

    /**
     * Twice the defaults: a killed holder's lock is freed by memcached's own expiry, the lease's TTL rounded up to whole
     * seconds plus two, so up to about 3.5 s after a renewal for the 800 ms lease this gives (R9.1's bound: 4.8 s); the
     * default 400 ms lease would give the same 3.5 s against a bound of 2.4 s.
     */
    @Override
    protected TckTiming timing() {
        return TckTiming.defaults().scaledBy(2);
    }

    @Override
    protected Map<FaultRule, String> rulesNotRunHere() {
        String single = "one memcached server is the whole deployment: ";
        return Map.of(
                FaultRule.R9_6, single + "nothing is built to survive its loss (memcached servers do not replicate)",
                FaultRule.R9_7, single + "it has no replica to fail over to",
                FaultRule.R9_9, single + "it has no members to split into a minority and a majority",
                FaultRule.R9_10, single + "it has no leader or primary whose peers could take over while it is frozen");
    }
}
