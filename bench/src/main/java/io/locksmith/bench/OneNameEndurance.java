package io.locksmith.bench;

import io.locksmith.Lease;
import io.locksmith.LockClient;

import java.time.Duration;
import java.util.Arrays;
import java.util.UUID;

/**
 * One client takes and releases one lock name many times in a row and prints the p50 of each block of holdings: a
 * store whose per-acquire cost grows with the holdings of a name shows it as a rising p50 (etcd with a key per
 * holding did, since etcd's index keeps deleted keys until compaction: docs/PERFORMANCE.md, "etcd: one key per
 * client and slot"). Not part of the bench's tables.
 *
 * <pre>java -cp bench/target/locksmith-bench.jar io.locksmith.bench.OneNameEndurance etcd://127.0.0.1:2379 20000 2000</pre>
 */
public final class OneNameEndurance {

    private OneNameEndurance() {
    }

    public static void main(String[] args) {
        if (args.length != 3) {
            System.err.println("usage: OneNameEndurance <store uri> <holdings> <block size>");
            System.exit(2);
        }
        String uri = args[0];
        int holdings = Integer.parseInt(args[1]);
        int block = Integer.parseInt(args[2]);
        String name = "endurance-" + UUID.randomUUID();
        try (LockClient client = LockClient.open(uri)) {
            long[] micros = new long[block];
            for (int done = 0; done < holdings; ) {
                int n = Math.min(block, holdings - done);
                for (int i = 0; i < n; i++) {
                    long start = System.nanoTime();
                    try (Lease lease = client.lock(name).acquire(Duration.ofSeconds(10))) {
                        // held for no time: the acquire and the release are what is measured
                    }
                    micros[i] = (System.nanoTime() - start) / 1000;
                }
                long[] sorted = Arrays.copyOf(micros, n);
                Arrays.sort(sorted);
                done += n;
                System.out.printf("holdings %,7d: acquire+release p50 %,6d us, p90 %,6d us%n", done, sorted[n / 2],
                        sorted[n * 9 / 10]);
            }
        }
        System.exit(0);
    }
}
