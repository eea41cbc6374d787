package io.locksmith.bench;

import io.etcd.jetcd.Client;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryNTimes;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.JedisPooled;

import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * One plain request per store on its raw client (Redis {@code PING}, ZooKeeper {@code exists}, etcd
 * {@code get}): the round trip that handoff latency is expressed in.
 */
final class RoundTrips {

    private RoundTrips() {
    }

    static Map<String, Double> measure(Store store, StoreServers servers, Scenarios scenarios) throws Exception {
        int port = servers.port(store);
        switch (store) {
            case REDIS -> {
                try (JedisPooled jedis = new JedisPooled(new HostAndPort("127.0.0.1", port))) {
                    return scenarios.roundTrip(jedis::ping);
                }
            }
            case ZOOKEEPER -> {
                try (CuratorFramework curator = CuratorFrameworkFactory.newClient("127.0.0.1:" + port,
                        new RetryNTimes(3, 100))) {
                    curator.start();
                    curator.blockUntilConnected(10, TimeUnit.SECONDS);
                    return scenarios.roundTrip(() -> curator.checkExists().forPath("/"));
                }
            }
            case ETCD -> {
                try (Client client = Client.builder().endpoints("http://127.0.0.1:" + port).build()) {
                    var key = JetcdSubject.bytes("bench-round-trip");
                    return scenarios.roundTrip(() -> client.getKVClient().get(key).get(10, TimeUnit.SECONDS));
                }
            }
            default -> throw new IllegalArgumentException(store + " has no network round trip");
        }
    }
}
