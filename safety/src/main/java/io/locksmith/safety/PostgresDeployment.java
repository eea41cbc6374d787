package io.locksmith.safety;

import io.locksmith.tck.fault.TcpProxy;
import io.locksmith.tck.server.ServerProcess;
import io.locksmith.tck.server.StoreServers;

import java.util.EnumSet;
import java.util.Set;

/**
 * One PostgreSQL 15 server (the Debian package's binaries, run as the postgres user when root): {@code postgres://}.
 * {@link #killNode()} is a crash and recovery of that server: killed with -9 (its backends too) and started again
 * on its data directory at once; committed lock rows and the fencing sequence survive it.
 */
public final class PostgresDeployment implements Deployment {

    /** Store calls give up after this: below the lease times of the fault rules, so a cut-off call ends in time. */
    static final String TIMEOUT = "timeout=300ms";

    private final ServerProcess postgres = StoreServers.postgres();

    @Override
    public String name() {
        return "postgres-single";
    }

    @Override
    public String description() {
        return "one PostgreSQL 15 server (fsync off, synchronous_commit on), pgjdbc + HikariCP";
    }

    @Override
    public String uri() {
        return uriOn(postgres.port());
    }

    private static String uriOn(int port) {
        return "postgres://" + StoreServers.POSTGRES_USER + "@127.0.0.1:" + port + "/postgres?" + TIMEOUT;
    }

    @Override
    public Set<Fault> faults() {
        return EnumSet.of(Fault.HOLDER_KILL, Fault.HOLDER_PAUSE, Fault.CLIENT_PARTITION, Fault.LOST_REPLY,
                Fault.NODE_KILL);
    }

    @Override
    public String proxiedAddress() {
        return "127.0.0.1:" + postgres.port();
    }

    @Override
    public String uriThrough(TcpProxy proxy) {
        return uriOn(proxy.port());
    }

    @Override
    public void killNode() {
        restartStore();
    }

    @Override
    public void restartStore() {
        postgres.kill();
        postgres.restart();
        StoreServers.awaitPostgresReady(postgres);
    }

    @Override
    public void close() {
        postgres.close();
    }
}
