package io.locksmith.safety;

import io.locksmith.tck.fault.TcpProxy;
import io.locksmith.tck.server.ServerProcess;

import java.util.EnumSet;
import java.util.Set;

/** One redis-server, persistence off: {@code redis://}. It cannot survive losing its node. */
public final class RedisSingleDeployment implements Deployment {

    /** Store calls give up after this: below the lease times of the fault rules, so a cut-off call ends in time. */
    static final String TIMEOUT = "timeout=300ms";

    private final ServerProcess redis = Servers.redis();
    /** The clients' transport: {@code jedis}, {@code redisson} or {@code lettuce}. */
    private final String client;

    public RedisSingleDeployment() {
        this("jedis");
    }

    /** @param client the clients' transport: {@code jedis}, {@code redisson} or {@code lettuce} */
    public RedisSingleDeployment(String client) {
        this.client = client;
        if (!"jedis".equals(client)) {
            // The first Redisson or Lettuce client of a JVM loads Netty and connects, which takes longer than the 300 ms
            // time-out of the clients under test on a loaded machine: pay it here with a patient client.
            try (io.locksmith.LockClient warmUp = io.locksmith.LockClient.open("redis://127.0.0.1:" + redis.port()
                    + "?timeout=30s" + transport())) {
                warmUp.lock("warm-up").tryAcquire().ifPresent(io.locksmith.Lease::close);
            } catch (RuntimeException e) {
                redis.close();
                throw e;
            }
        }
    }

    private String transport() {
        return "jedis".equals(client) ? "" : "&client=" + client;
    }

    @Override
    public String name() {
        return "jedis".equals(client) ? "redis-single" : "redis-single-" + client;
    }

    @Override
    public String description() {
        return "one redis-server 7 (persistence off), client=" + client;
    }

    @Override
    public String uri() {
        return "redis://127.0.0.1:" + redis.port() + "?" + TIMEOUT + transport();
    }

    @Override
    public Set<Fault> faults() {
        return EnumSet.of(Fault.HOLDER_KILL, Fault.HOLDER_PAUSE, Fault.CLIENT_PARTITION, Fault.LOST_REPLY);
    }

    @Override
    public String proxiedAddress() {
        return "127.0.0.1:" + redis.port();
    }

    @Override
    public String uriThrough(TcpProxy proxy) {
        return "redis://127.0.0.1:" + proxy.port() + "?" + TIMEOUT + transport();
    }

    /** Killed and started again on its port: without persistence it comes back empty. */
    @Override
    public void restartStore() {
        redis.restart();
        Servers.awaitState("the restarted redis-server answering PING", java.time.Duration.ofSeconds(20),
                () -> Servers.redisCommand(redis.port(), "PING").equals("PONG"));
    }

    @Override
    public void close() {
        redis.close();
    }
}
