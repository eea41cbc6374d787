package io.locksmith.examples;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * The "database" of the example: one item's stock and the highest fencing token it has accepted, in a file
 * that several processes share. A write carries the writer's fencing token and is rejected if a newer
 * holder has written already, as a SQL {@code UPDATE stock SET qty = qty - 1, fence = ? WHERE fence <= ?}
 * would. The file lock only makes each read-modify-write atomic; it is not the distributed lock.
 */
public final class FencedFileInventory {

    /** What a deduction did. */
    public enum Outcome { DEDUCTED, SOLD_OUT, STALE_TOKEN_REJECTED }

    private final Path file;

    public FencedFileInventory(Path file) {
        this.file = file;
    }

    /** Sets the stock and clears the fence. */
    public void reset(long stock) {
        update(state -> new long[]{stock, 0});
    }

    /** Takes one item if the token is not older than the last accepted one and stock remains. */
    public Outcome deduct(long fencingToken) {
        Outcome[] outcome = new Outcome[1];
        update(state -> {
            if (fencingToken < state[1]) {
                outcome[0] = Outcome.STALE_TOKEN_REJECTED;
                return state;
            }
            if (state[0] <= 0) {
                outcome[0] = Outcome.SOLD_OUT;
                return new long[]{state[0], fencingToken};
            }
            outcome[0] = Outcome.DEDUCTED;
            return new long[]{state[0] - 1, fencingToken};
        });
        return outcome[0];
    }

    /** The stock now. */
    public long stock() {
        long[][] read = new long[1][];
        update(state -> {
            read[0] = state;
            return state;
        });
        return read[0][0];
    }

    private void update(java.util.function.UnaryOperator<long[]> change) {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.READ,
                StandardOpenOption.WRITE); FileLock ignored = channel.lock()) {
            ByteBuffer buffer = ByteBuffer.allocate(16);
            long[] state = new long[]{0, 0};
            if (channel.read(buffer, 0) == 16) {
                buffer.flip();
                state = new long[]{buffer.getLong(), buffer.getLong()};
            }
            long[] next = change.apply(state);
            if (next != state) {
                ByteBuffer out = ByteBuffer.allocate(16).putLong(next[0]).putLong(next[1]);
                out.flip();
                channel.write(out, 0);
                channel.force(false);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("inventory file " + file, e);
        }
    }
}
