package io.locksmith.lockctl;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.options.GetOption;
import io.locksmith.Lease;
import io.locksmith.LockClient;
import io.locksmith.tck.server.ServerProcess;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import redis.clients.jedis.Jedis;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.SortedSet;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * lockctl's read-only tools on a migration between a real Redis and a real etcd (issue 14, items 4 and 8):
 * {@code fleet} lists the live clients and their phases (table and JSON), and {@code inspect} on a migrate: URI
 * writes nothing: every key of both stores is listed before, during (with the client's lock held) and after.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class MigrationToolsTest {

    private static ServerProcess redis;
    private static ServerProcess etcd;

    @BeforeAll
    static void startStores() {
        redis = Servers.redis(null);
        etcd = Servers.etcd(null);
    }

    @AfterAll
    static void stopStores() {
        if (redis != null) {
            redis.close();
        }
        if (etcd != null) {
            etcd.close();
        }
    }

    private static String migrateUri(String phase) {
        return "migrate:?from=redis://127.0.0.1:" + redis.port() + "&to=etcd://127.0.0.1:" + etcd.port() + "&phase="
                + phase;
    }

    @Test
    void fleetListsTheLiveClientsWithTheirPhases() {
        try (LockClient old = LockClient.open(migrateUri("from")); LockClient dual = LockClient.open(migrateUri("dual"))) {
            Run table = Run.lockctl("fleet", "--uri", migrateUri("dual"));
            assertEquals(ExitCode.OK, table.exitCode(), table.both());
            assertTrue(table.out().matches("(?s)CLIENT +PHASE +SEEN IN\\n.*"), table.both());
            assertTrue(table.out().matches("(?s).*" + old.clientId() + " +from +.*"), table.both());
            assertTrue(table.out().matches("(?s).*" + dual.clientId() + " +dual +.*"), table.both());
            assertTrue(table.out().contains("2 live client(s): 1 from, 1 dual, 0 to"), table.both());

            Run json = Run.lockctl("fleet", "--uri", migrateUri("dual"), "--json");
            assertEquals(ExitCode.OK, json.exitCode(), json.both());
            assertTrue(json.out().contains("\"phases\":{\"from\":1,\"dual\":1,\"to\":0}"), json.both());
            assertTrue(json.out().contains("{\"clientId\":\"" + old.clientId() + "\",\"phase\":\"from\""), json.both());
        }
        Run empty = Run.lockctl("fleet", "--uri", migrateUri("from"));
        assertEquals(ExitCode.OK, empty.exitCode(), empty.both());
        assertTrue(empty.out().contains("no live migrating client"), empty.both());

        Run notMigrate = Run.lockctl("fleet", "--uri", "redis://127.0.0.1:" + redis.port());
        assertEquals(ExitCode.USAGE, notMigrate.exitCode(), notMigrate.both());
    }

    /**
     * In phase {@code to} next to a live {@code from} client: a guarded client would be refused to start there, and
     * would announce itself and write the new-store-tokens marker. {@code inspect} does neither.
     */
    @Test
    void inspectOnAMigrationWritesNothingAndRunsNextToAnyPhase() {
        String name = "tools-" + UUID.randomUUID();
        try (LockClient old = LockClient.open(migrateUri("from"));
             Lease lease = old.lock(name).acquire(Duration.ofSeconds(5))) {
            SortedSet<String> before = allKeys();
            Run run = Run.lockctl("inspect", "--uri", migrateUri("to"), name);
            SortedSet<String> after = allKeys();

            assertEquals(ExitCode.OK, run.exitCode(), run.both());
            assertEquals(before, after, "inspect wrote to a store: " + run.both());
            // Phase to looks at the new store only, where the from client holds nothing: the name is free there.
            assertTrue(run.out().matches("(?s).*" + name + " +free.*"), run.both());
            Run fromSide = Run.lockctl("inspect", "--uri", migrateUri("from"), name);
            assertTrue(fromSide.out().matches("(?s).*" + name + " +held +" + old.clientId() + ".*"), fromSide.both());
            assertEquals(before, allKeys(), "inspect wrote to a store: " + fromSide.both());
            assertTrue(lease.isHeld());
        }
    }

    /** Every key of both stores, each prefixed with its store. */
    private static SortedSet<String> allKeys() {
        SortedSet<String> keys = new TreeSet<>();
        try (Jedis jedis = new Jedis("127.0.0.1", redis.port())) {
            jedis.keys("*").forEach(key -> keys.add("redis " + key));
        }
        try (Client client = Client.builder().endpoints("http://127.0.0.1:" + etcd.port()).build()) {
            ByteSequence all = ByteSequence.from(new byte[]{0});
            for (KeyValue kv : client.getKVClient().get(all, GetOption.builder().withRange(all).build())
                    .get(10, TimeUnit.SECONDS).getKvs()) {
                keys.add("etcd " + kv.getKey().toString(StandardCharsets.UTF_8));
            }
        } catch (Exception e) {
            throw new IllegalStateException("cannot list the keys of " + etcd, e);
        }
        return keys;
    }
}
