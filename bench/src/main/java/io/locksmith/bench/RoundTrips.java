package io.locksmith.bench;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.options.GetOption;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryNTimes;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.JedisPooled;

import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * One plain request per store on its raw client: the round trip that handoff latency is expressed in. A
 * read the server answers alone (Redis {@code PING}, ZooKeeper {@code exists}, an etcd serializable
 * {@code get}) and a write (Redis {@code SET}, ZooKeeper {@code setData}, etcd {@code put}): a lock handoff is
 * two writes (the release, the waiter's acquire) and a notification, so it is judged in write round trips.
 *
 * <p>Those round trips are measured back to back, with client and server busy. A handoff meets them idle: the holder
 * releases after its work, and the server, the waiter's notification thread and the waiter have been waiting. On a
 * virtual machine a request to an idle server costs several busy ones (a vCPU woken from idle), so the same write is
 * also measured after 1 ms of idling before each ({@link #IDLE_WRITE}), as a holder's release after 1 ms of work.
 */
final class RoundTrips {

    static final String READ = "read round trip";
    static final String WRITE = "write round trip";
    static final String WRITE_WAIT = "write + WAIT 1 replica round trip";
    static final String IDLE_WRITE = "write round trip after 1 ms idle";
    /** With {@code --network-delay}: the read round trip to the server's own port, the proxy left out. */
    static final String DIRECT_READ = "read round trip without the delaying proxy";
    /** With {@code --network-delay}: how long each chunk spent in the delaying proxy, each direction. */
    static final String PROXY_REQUEST = "delaying proxy: a request chunk's time in it (one way)";
    static final String PROXY_REPLY = "delaying proxy: a reply chunk's time in it (one way)";
    private static final long IDLE_NANOS = TimeUnit.MILLISECONDS.toNanos(1);

    private RoundTrips() {
    }

    /** Both round trips of a store, read first. */
    static Map<String, Map<String, Double>> measure(Store store, BenchServers servers, Scenarios scenarios)
            throws Exception {
        Map<String, Map<String, Double>> trips = measure(store, servers, servers.port(store), scenarios);
        if (servers.network(store) != null) {
            trips.put(DIRECT_READ, measure(store, servers, servers.serverPort(store), scenarios).get(READ));
        }
        return trips;
    }

    /**
     * With {@code --network-delay}: each direction's time in the delaying proxy per chunk since the last call, as
     * round-trip rows of the results (p50, p99, max in µs), so the run states the delay its figures were measured with.
     */
    static Map<String, Map<String, Double>> proxyDelays(LatencyProxy network) {
        Map<String, Double> all = network.delayed();
        network.resetRecorded();
        Map<String, Map<String, Double>> rows = new LinkedHashMap<>();
        for (String direction : new String[] {"request_", "reply_"}) {
            Map<String, Double> row = new LinkedHashMap<>();
            all.forEach((key, value) -> {
                if (key.startsWith(direction)) {
                    row.put(key.substring(direction.length()), value);
                }
            });
            rows.put(direction.equals("request_") ? PROXY_REQUEST : PROXY_REPLY, row);
        }
        return rows;
    }

    private static Map<String, Map<String, Double>> measure(Store store, BenchServers servers, int port,
                                                            Scenarios scenarios) throws Exception {
        Map<String, Map<String, Double>> trips = new LinkedHashMap<>();
        switch (store) {
            case REDIS -> {
                try (JedisPooled jedis = new JedisPooled(new HostAndPort("127.0.0.1", port))) {
                    trips.put(READ, scenarios.roundTrip(jedis::ping));
                    trips.put(WRITE, scenarios.roundTrip(() -> jedis.set("bench-round-trip", "x")));
                    trips.put(IDLE_WRITE, scenarios.roundTrip(() -> jedis.set("bench-round-trip", "x"), IDLE_NANOS));
                    jedis.del("bench-round-trip");
                }
            }
            case SENTINEL -> {
                try (redis.clients.jedis.Jedis jedis = new redis.clients.jedis.Jedis("127.0.0.1", servers.sentinelPrimaryPort())) {
                    trips.put(WRITE, scenarios.roundTrip(() -> jedis.set("bench-round-trip", "x")));
                    // What the default adds to every acquire and renewal: WAIT for one replica after the write.
                    trips.put(WRITE_WAIT, scenarios.roundTrip(() -> {
                        jedis.set("bench-round-trip", "x");
                        jedis.waitReplicas(1, 1000);
                    }));
                    jedis.del("bench-round-trip");
                }
            }
            case ZOOKEEPER -> {
                try (CuratorFramework curator = CuratorFrameworkFactory.newClient("127.0.0.1:" + port,
                        new RetryNTimes(3, 100))) {
                    curator.start();
                    curator.blockUntilConnected(10, TimeUnit.SECONDS);
                    curator.create().orSetData().forPath("/bench-round-trip");
                    byte[] data = {1};
                    trips.put(READ, scenarios.roundTrip(() -> curator.checkExists().forPath("/bench-round-trip")));
                    trips.put(WRITE, scenarios.roundTrip(() -> curator.setData().forPath("/bench-round-trip", data)));
                    trips.put(IDLE_WRITE, scenarios.roundTrip(() -> curator.setData().forPath("/bench-round-trip", data),
                            IDLE_NANOS));
                    curator.delete().forPath("/bench-round-trip");
                }
            }
            case ETCD -> {
                try (Client client = Client.builder().endpoints("http://127.0.0.1:" + port).build()) {
                    ByteSequence key = ByteSequence.from("bench-round-trip", StandardCharsets.UTF_8);
                    GetOption serializable = GetOption.builder().withSerializable(true).build();
                    trips.put(READ, scenarios.roundTrip(() -> client.getKVClient().get(key, serializable)
                            .get(10, TimeUnit.SECONDS)));
                    trips.put(WRITE, scenarios.roundTrip(() -> client.getKVClient().put(key, key)
                            .get(10, TimeUnit.SECONDS)));
                    trips.put(IDLE_WRITE, scenarios.roundTrip(() -> client.getKVClient().put(key, key)
                            .get(10, TimeUnit.SECONDS), IDLE_NANOS));
                    client.getKVClient().delete(key).get(10, TimeUnit.SECONDS);
                }
            }
            case POSTGRES -> {
                try (Connection connection = DriverManager.getConnection(
                        "jdbc:postgresql://127.0.0.1:" + port + "/postgres", io.locksmith.tck.server.StoreServers.POSTGRES_USER,
                        "");
                     Statement statement = connection.createStatement()) {
                    statement.execute("CREATE TABLE IF NOT EXISTS bench_round_trip (id int PRIMARY KEY, v int)");
                    statement.execute("INSERT INTO bench_round_trip VALUES (1, 0) ON CONFLICT DO NOTHING");
                    trips.put(READ, scenarios.roundTrip(() -> statement.execute("SELECT 1")));
                    trips.put(WRITE, scenarios.roundTrip(() -> statement.execute(
                            "UPDATE bench_round_trip SET v = v + 1 WHERE id = 1")));
                    statement.execute("DROP TABLE bench_round_trip");
                }
            }
            default -> throw new IllegalArgumentException(store + " has no network round trip");
        }
        return trips;
    }
}
