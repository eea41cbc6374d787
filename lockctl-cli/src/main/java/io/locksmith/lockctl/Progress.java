package io.locksmith.lockctl;

import java.io.PrintWriter;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * A progress line on stderr for anything that takes more than a second, so stdout stays clean for
 * {@code --json} and pipes. Silent for work that finishes within the second. On a terminal it updates one
 * line in place every second; otherwise it prints a line every five seconds.
 */
final class Progress implements AutoCloseable {

    private final PrintWriter err;
    private final String label;
    private final Supplier<String> status;
    private final boolean terminal = System.console() != null;
    private final long started = System.nanoTime();
    private final ScheduledExecutorService ticker;
    private boolean printed;
    private int lastLength;

    private Progress(PrintWriter err, String label, Supplier<String> status) {
        this.err = err;
        this.label = label;
        this.status = status;
        this.ticker = Executors.newSingleThreadScheduledExecutor(runnable -> {
            Thread thread = new Thread(runnable, "lockctl-progress");
            thread.setDaemon(true);
            return thread;
        });
        long period = terminal ? 1 : 5;
        ticker.scheduleAtFixedRate(this::tick, 1, period, TimeUnit.SECONDS);
    }

    /** Starts a progress line for {@code label}; {@code status} says how far it got (may return ""). */
    static Progress start(PrintWriter err, String label, Supplier<String> status) {
        return new Progress(err, label, status);
    }

    private synchronized void tick() {
        long seconds = TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - started);
        String detail = status.get();
        String line = label + "... " + seconds + " s" + (detail.isEmpty() ? "" : ", " + detail);
        if (terminal) {
            err.print("\r" + line + " ".repeat(Math.max(0, lastLength - line.length())));
            lastLength = line.length();
        } else {
            err.println(line);
        }
        err.flush();
        printed = true;
    }

    @Override
    public synchronized void close() {
        ticker.shutdownNow();
        if (printed && terminal) {
            // Wipe the line, so the command's own output starts on a clean one.
            err.print("\r" + " ".repeat(lastLength) + "\r");
            err.flush();
        }
    }
}
