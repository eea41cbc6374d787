package io.locksmith.safety;

import io.locksmith.tck.fault.TcpProxy;
import io.locksmith.tck.server.PostgresStandbyPair;
import io.locksmith.tck.server.StoreServers;

import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * A PostgreSQL 15 primary and one synchronous streaming standby ({@code synchronous_standby_names='*'},
 * {@code synchronous_commit=remote_apply}, made with {@code pg_basebackup -R}): {@code postgres://} naming both
 * hosts, so the clients' driver connects to whichever is primary ({@code targetServerType=primary}).
 *
 * <p>Every commit, and with it every grant and every advance of the fencing sequence, is applied on the standby
 * before the client is told, so the deployment is built to survive the loss of its primary: {@link #killNode()}
 * kills the primary with -9 and promotes the standby ({@code pg_ctl promote}), which serves alone until
 * {@link #restartNode()} makes the killed node its synchronous standby again from a fresh base backup. PostgreSQL
 * does not fail over by itself; here the deployment is the failover manager (Patroni's part in production), and,
 * as a manager must, it promotes only once the old primary is dead.
 */
public final class PostgresStandbyDeployment implements Deployment {

    private final PostgresStandbyPair pair = PostgresStandbyPair.synchronous();

    @Override
    public String name() {
        return "postgres-standby";
    }

    @Override
    public String description() {
        return "PostgreSQL 15 primary + 1 synchronous streaming standby (synchronous_commit=remote_apply), the standby"
                + " promoted with pg_ctl promote when the primary is killed; pgjdbc with both hosts"
                + " (targetServerType=primary) + HikariCP";
    }

    @Override
    public String uri() {
        return uriOn(pair.ports());
    }

    private static String uriOn(List<Integer> ports) {
        return "postgres://" + StoreServers.POSTGRES_USER + "@"
                + ports.stream().map(port -> "127.0.0.1:" + port).collect(Collectors.joining(","))
                + "/postgres?" + PostgresDeployment.TIMEOUT;
    }

    @Override
    public Set<Fault> faults() {
        return EnumSet.of(Fault.HOLDER_KILL, Fault.HOLDER_PAUSE, Fault.CLIENT_PARTITION, Fault.LOST_REPLY,
                Fault.NODE_KILL);
    }

    /** Both servers: either may be the primary, and a cut-off client must reach neither. */
    @Override
    public List<String> proxiedAddresses() {
        return pair.ports().stream().map(port -> "127.0.0.1:" + port).toList();
    }

    @Override
    public String uriThrough(List<TcpProxy> proxies) {
        if (proxies.size() != 2) {
            throw new IllegalArgumentException("expected one proxy per server (first primary, standby), got "
                    + proxies.size());
        }
        return uriOn(proxies.stream().map(TcpProxy::port).toList());
    }

    /** Kills the primary with -9 and returns once the standby is promoted and accepts writes. */
    @Override
    public void killNode() {
        pair.failOver();
    }

    /** Makes the killed node the synchronous standby of the promoted one again (a new base backup). */
    @Override
    public void restartNode() {
        pair.rebuildStandby();
    }

    /**
     * The same failover as {@link #killNode()}: with a synchronous standby it loses no grant, which is what rule R9.7
     * then finds (the first holder keeps the lock). {@link Fault#FAILOVER} is not listed: replication cannot be
     * stopped without stopping every commit here.
     */
    @Override
    public void failOver() {
        pair.failOver();
    }

    @Override
    public void close() {
        pair.close();
    }
}
