package io.locksmith.redis;

import io.locksmith.spi.Registry;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Registry records on Redis, written to every node and read as the union of all nodes: with one node that
 * is plain Redis; with RedLock's independent nodes a record seen on any node counts, which errs on the side
 * of the phase guard refusing a client rather than letting a conflicting one start.
 */
final class RedisRegistry implements Registry {

    private final List<LockNode> nodes;

    RedisRegistry(List<LockNode> nodes) {
        this.nodes = List.copyOf(nodes);
    }

    @Override
    public void put(String key, String value, Duration ttl) {
        for (LockNode node : nodes) {
            node.registryPut(key, value, ttl);
        }
    }

    @Override
    public Map<String, String> list(String prefix) {
        Map<String, String> union = new TreeMap<>();
        for (LockNode node : nodes) {
            node.registryList(prefix).forEach(union::putIfAbsent);
        }
        return union;
    }

    @Override
    public void remove(String key) {
        for (LockNode node : nodes) {
            node.registryRemove(key);
        }
    }
}
