package io.locksmith.redis;

import io.locksmith.LockClient;

/**
 * The outage rules (R9.14, R9.15) through Lettuce ({@code ?client=lettuce}). Lettuce rejects a command while it is
 * disconnected without saying why; the transport then finds the refused connection with a TCP connect and keeps its
 * {@code ConnectException} in the cause chain.
 */
class LettuceOutageFaultTest extends RedisOutageFaultTest {

    @Override
    protected LockClient newClient() {
        return LockClient.open("redis://127.0.0.1:" + redis.port() + "?timeout=1s&client=lettuce");
    }
}
