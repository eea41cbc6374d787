package io.locksmith.etcd;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.options.DeleteOption;
import io.etcd.jetcd.options.GetOption;
import io.etcd.jetcd.options.PutOption;
import io.locksmith.tck.RawStoreSession;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

/**
 * The TCK's raw session (rule R2.6) on etcd: a jetcd client as one user, or without credentials, that runs etcd's own
 * requests on a lock's keys: a delete of the lock's whole key range and a revoke of the holder's lease; a put with a
 * lease of its own and a keep-alive of the holder's lease; a put of a holder key of its own; a get. It learns the
 * holder's key and lease from {@code oracle} (a root client), as an attacker who overheard them would. A wrong
 * password fails at the first request, when etcd refuses the login.
 */
final class EtcdRawSession implements RawStoreSession {

    private static final long SECONDS = 10;
    private final Client client;
    private final Client oracle;
    private final EtcdKeys keys = new EtcdKeys(EtcdSettings.DEFAULT_PREFIX);

    EtcdRawSession(Client client, Client oracle) {
        this.client = client;
        this.oracle = oracle;
    }

    private Optional<KeyValue> holder(String lockName) throws Exception {
        List<KeyValue> queue = oracle.getKVClient().get(keys.directory(lockName), GetOption.builder().isPrefix(true)
                .withSortField(GetOption.SortTarget.CREATE).withSortOrder(GetOption.SortOrder.ASCEND).withLimit(1)
                .build()).get(SECONDS, TimeUnit.SECONDS).getKvs();
        return queue.stream().findFirst();
    }

    @Override
    public void delete(String lockName) throws Exception {
        Optional<KeyValue> holder = holder(lockName);
        client.getKVClient().delete(keys.directory(lockName), DeleteOption.builder().isPrefix(true).build())
                .get(SECONDS, TimeUnit.SECONDS);
        if (holder.isPresent() && holder.get().getLease() != 0) {
            client.getLeaseClient().revoke(holder.get().getLease()).get(SECONDS, TimeUnit.SECONDS);
        }
    }

    /**
     * A keep-alive of the holder's lease, which etcd 3.4 lets anyone send (docs/SECURITY.md, "Leases"): it refreshes the
     * lease to the TTL the holder asked for, never beyond; then the holder's key put again on a lease of its own of
     * {@code ttl}, which needs write permission on the key.
     */
    @Override
    public void extend(String lockName, Duration ttl) throws Exception {
        Optional<KeyValue> holder = holder(lockName);
        if (holder.isEmpty()) {
            return;
        }
        if (holder.get().getLease() != 0) {
            client.getLeaseClient().keepAliveOnce(holder.get().getLease()).get(SECONDS, TimeUnit.SECONDS);
        }
        long lease = client.getLeaseClient().grant(ttl.toSeconds()).get(SECONDS, TimeUnit.SECONDS).getID();
        try {
            client.getKVClient().put(holder.get().getKey(), holder.get().getValue(), PutOption.builder()
                    .withLeaseId(lease).build()).get(SECONDS, TimeUnit.SECONDS);
        } catch (Exception refused) {
            client.getLeaseClient().revoke(lease); // nothing is attached to it: do not leave it for a day
            throw refused;
        }
    }

    /** A holder key of its own, without a lease, with a create revision after the holder's: a waiter that never leaves. */
    @Override
    public void takeOver(String lockName) throws Exception {
        String intruder = "intruder-" + UUID.randomUUID();
        client.getKVClient().put(keys.key(lockName, intruder), bytes(intruder)).get(SECONDS, TimeUnit.SECONDS);
    }

    @Override
    public Optional<String> read(String lockName) throws Exception {
        List<KeyValue> found = client.getKVClient().get(keys.directory(lockName), GetOption.builder().isPrefix(true)
                .build()).get(SECONDS, TimeUnit.SECONDS).getKvs();
        return found.isEmpty() ? Optional.empty()
                : Optional.of(found.stream().map(kv -> kv.getValue().toString(StandardCharsets.UTF_8)).toList().toString());
    }

    private static ByteSequence bytes(String text) {
        return ByteSequence.from(text, StandardCharsets.UTF_8);
    }

    @Override
    public void close() {
        client.close();
    }
}
