package io.locksmith.bench;

import redis.clients.jedis.Jedis;

import java.util.Set;

/**
 * The Redis server's own time per operation of a subject, from {@code INFO commandstats}: reset when the measured window
 * starts, read when it ends. Only the commands the client sent count ("top-level" calls): a script's time includes the
 * commands it runs, which commandstats also lists on their own, so those are left out. Scripts ({@code EVAL},
 * {@code EVALSHA}, {@code FCALL} and their read-only forms) are always top-level; a subject names the plain commands it
 * sends per operation ({@link Subject#redisCommandsSent()}, e.g. the minimal protocol's {@code SET}).
 *
 * <p>Read with care: commandstats counts microseconds of CPU on the server per command, which depends on the pace of the
 * requests as well as on their work. The same minimal protocol cost the server 6.6 µs a pair back to back and 13.6 µs
 * with 300 µs between pairs (3 December 2026): a request to an idle server meets cold caches. So a slow client also
 * looks expensive to the server; compare a subject with the raw protocol over the same client library.
 */
final class RedisServerCost {

    private static final Set<String> SCRIPTS = Set.of("eval", "evalsha", "eval_ro", "evalsha_ro", "fcall", "fcall_ro");

    private final int port;

    RedisServerCost(int port) {
        this.port = port;
    }

    /** Starts a window: the server forgets its command statistics. */
    void start() {
        try (Jedis jedis = new Jedis("127.0.0.1", port)) {
            jedis.configResetStat();
        }
    }

    /** Server microseconds of the top-level commands since {@link #start()}, divided by {@code operations}. */
    double microsPerOperation(Set<String> plainCommandsSent, long operations) {
        String info;
        try (Jedis jedis = new Jedis("127.0.0.1", port)) {
            info = jedis.info("commandstats");
        }
        return topLevelMicros(info, plainCommandsSent) / Math.max(1, operations);
    }

    /** The sum of {@code usec} over the scripts and {@code plainCommandsSent} in an {@code INFO commandstats} reply. */
    static double topLevelMicros(String commandstats, Set<String> plainCommandsSent) {
        double micros = 0;
        for (String line : commandstats.split("\r?\n")) {
            if (!line.startsWith("cmdstat_")) {
                continue;
            }
            String command = line.substring("cmdstat_".length(), line.indexOf(':'));
            if (SCRIPTS.contains(command) || plainCommandsSent.contains(command)) {
                for (String field : line.substring(line.indexOf(':') + 1).split(",")) {
                    if (field.startsWith("usec=")) {
                        micros += Double.parseDouble(field.substring("usec=".length()));
                    }
                }
            }
        }
        return micros;
    }
}
