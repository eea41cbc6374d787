package io.locksmith.etcd;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.options.GetOption;
import io.etcd.jetcd.options.PutOption;
import io.locksmith.spi.Registry;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;

/**
 * Registry records on etcd, under {@code PREFIX.registry/} (beside, never inside, the lock prefix). A record
 * with a TTL is put with a lease of its own, rounded up to whole seconds; the previous record's lease simply
 * runs out. etcd reads are linearizable, as the migration phase guard needs.
 */
final class EtcdRegistry implements Registry {

    private final Client client;
    private final String root;
    private final Duration timeout;
    private final String store;

    private final Reachability members;

    EtcdRegistry(Client client, String lockPrefix, Duration timeout, String store, Reachability members) {
        this.members = members;
        this.client = client;
        this.root = (lockPrefix.endsWith("/") ? lockPrefix.substring(0, lockPrefix.length() - 1) : lockPrefix)
                + ".registry/";
        this.timeout = timeout;
        this.store = store;
    }

    @Override
    public void put(String key, String value, Duration ttl) {
        PutOption.Builder option = PutOption.builder();
        if (ttl != null) {
            long seconds = Math.max(1, (ttl.toMillis() + 999) / 1000);
            long leaseId = Calls.await(members, () -> client.getLeaseClient().grant(seconds), timeout, store, null,
                    "grant a registry lease").getID();
            option.withLeaseId(leaseId);
        }
        Calls.await(members, () -> client.getKVClient().put(bytes(root + key), bytes(value), option.build()), timeout, store,
                null, "put a registry record");
    }

    @Override
    public Map<String, String> list(String prefix) {
        var response = Calls.await(members, () -> client.getKVClient().get(bytes(root + prefix),
                GetOption.builder().isPrefix(true).build()), timeout, store, null, "list registry records");
        Map<String, String> records = new TreeMap<>();
        for (KeyValue kv : response.getKvs()) {
            records.put(kv.getKey().toString(StandardCharsets.UTF_8).substring(root.length()),
                    kv.getValue().toString(StandardCharsets.UTF_8));
        }
        return records;
    }

    @Override
    public void remove(String key) {
        Calls.await(members, () -> client.getKVClient().delete(bytes(root + key)), timeout, store, null,
                "remove a registry record");
    }

    private static ByteSequence bytes(String text) {
        return ByteSequence.from(text, StandardCharsets.UTF_8);
    }
}
