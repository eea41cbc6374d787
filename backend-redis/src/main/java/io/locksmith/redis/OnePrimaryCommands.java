package io.locksmith.redis;

import java.util.function.Consumer;

/**
 * The commands of one primary of a Redis Cluster, for scripts that name no key and must run on each primary in turn
 * (a {@code SCAN} walk: {@link RedisCommands#primaries()}). It borrows the cluster client's connections, so it has
 * nothing of its own to close, and no subscriptions, which belong to the cluster client.
 */
abstract class OnePrimaryCommands implements RedisCommands {

    private final String description;

    /** @param description the cluster client's description and this primary's address, for messages */
    OnePrimaryCommands(String description) {
        this.description = description;
    }

    @Override
    public final AutoCloseable subscribe(String channel, Consumer<String> onMessage) {
        throw new UnsupportedOperationException("subscribe on the cluster's commands, not on one primary");
    }

    @Override
    public final String describe() {
        return description;
    }

    @Override
    public final void close() {
        // The connections are the cluster client's.
    }
}
