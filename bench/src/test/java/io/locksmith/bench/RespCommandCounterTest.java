package io.locksmith.bench;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The renewal scenario's Redis request count rests on this parser: a command is counted once, however it is split. */
class RespCommandCounterTest {

    private static final String PIPELINE = "*1\r\n$4\r\nPING\r\n"
            + "*5\r\n$7\r\nEVALSHA\r\n$40\r\n0123456789012345678901234567890123456789\r\n$1\r\n1\r\n$6\r\nlock:1\r\n$5\r\n30000\r\n"
            + "*3\r\n$3\r\nSET\r\n$3\r\nk\r\n\r\n$0\r\n\r\n";

    @Test
    void countsEveryCommandOfAPipelineInOneChunk() {
        byte[] bytes = PIPELINE.getBytes(StandardCharsets.UTF_8);

        assertEquals(3, new RedisRequestCounter.RespCommandCounter().feed(bytes, bytes.length));
    }

    @Test
    void countsTheSameWhenTheStreamArrivesByteByByte() {
        byte[] bytes = PIPELINE.getBytes(StandardCharsets.UTF_8);
        RedisRequestCounter.RespCommandCounter counter = new RedisRequestCounter.RespCommandCounter();
        int total = 0;
        for (byte b : bytes) {
            total += counter.feed(new byte[] {b}, 1);
        }

        assertEquals(3, total);
    }

    @Test
    void countsAnInlineCommandAsOne() {
        byte[] bytes = "PING\r\n*1\r\n$4\r\nPING\r\n".getBytes(StandardCharsets.UTF_8);

        assertEquals(2, new RedisRequestCounter.RespCommandCounter().feed(bytes, bytes.length));
    }
}
