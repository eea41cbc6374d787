package io.locksmith.tck.fault;

import io.locksmith.LockOptions;
import io.locksmith.tck.FencedRegister;
import io.locksmith.tck.LockShape;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A lock holder in a child JVM ({@link VictimMain}) that a fault test can really pause, resume and kill: a
 * SIGSTOP stops its renewal thread and its work together, as a stop-the-world GC pause or a frozen VM would;
 * {@code kill -9} ends it without any clean-up. The child runs with this JVM's {@code java.class.path}, so it
 * finds the same backends through the same {@code ServiceLoader}.
 * <pre>{@code
 * try (VictimProcess victim = VictimProcess.start(uri, "stock:42", LockOptions.builder().leaseTime(ttl).build())) {
 *     long token = victim.awaitAcquired(Duration.ofSeconds(20));
 *     victim.pause();                              // its lease runs out while it is frozen
 *     ... another client takes the lock and writes with a higher token ...
 *     victim.resume();
 *     VictimProcess.FencedWrite write = victim.fencedWrite(register, 2);
 *     assertFalse(write.heldBeforeWrite());        // it was told before it wrote
 *     assertFalse(write.accepted());               // and the fence refused the write
 * }
 * }</pre>
 * Not thread-safe: one test thread drives it. Closing it kills the child (SIGCONT first, in case it is paused).
 */
public final class VictimProcess implements AutoCloseable {

    /** What the victim saw when asked to write, and what the fenced resource did with its write. */
    public record FencedWrite(long token, boolean heldBeforeWrite, String lossReason, boolean accepted) {
    }

    private static final Duration ANSWER_TIMEOUT = Duration.ofSeconds(20);

    private final Process process;
    private final Writer commands;
    private final BlockingQueue<String> answers = new LinkedBlockingQueue<>();
    private final List<String> lossReports = new CopyOnWriteArrayList<>();
    private final Path stderr;
    private final String lockName;
    private long token = Long.MIN_VALUE;
    private String clientId;

    private VictimProcess(Process process, Path stderr, String lockName) {
        this.process = process;
        this.stderr = stderr;
        this.lockName = lockName;
        this.commands = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
        Thread reader = new Thread(this::readAnswers, "victim-reader-" + process.pid());
        reader.setDaemon(true);
        reader.start();
    }

    /**
     * Starts a child JVM that opens {@code uri} and tries to acquire {@code lockName} with {@code options}
     * (lease time and renewing or fixed; other options are not passed) for up to 20 s. Returns at once; call
     * {@link #awaitAcquired(Duration)}.
     *
     * @throws NullPointerException if an argument is null
     * @throws UncheckedIOException if the JVM cannot be started
     */
    public static VictimProcess start(String uri, String lockName, LockOptions options) {
        return start(uri, lockName, options, LockShape.MUTEX);
    }

    /**
     * As {@link #start(String, String, LockOptions)}, but the child takes its holding through {@code shape} on
     * {@code lockName} (the write lock of a read-write lock, all permits of a semaphore) instead of the mutex; its
     * token is then the primitive's lease's token.
     *
     * @throws NullPointerException if an argument is null
     * @throws UncheckedIOException if the JVM cannot be started
     */
    public static VictimProcess start(String uri, String lockName, LockOptions options, LockShape shape) {
        Objects.requireNonNull(uri, "uri cannot be null");
        Objects.requireNonNull(lockName, "lockName cannot be null");
        Objects.requireNonNull(options, "options cannot be null");
        Objects.requireNonNull(shape, "shape cannot be null");
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        // A small heap and a fast start: the child only holds one lock.
        command.addAll(List.of("-Xmx64m", "-XX:TieredStopAtLevel=1", "-Xshare:auto"));
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(VictimMain.class.getName());
        command.add(uri);
        command.add(lockName);
        command.add(Long.toString(options.leaseTime().toMillis()));
        command.add(options.isRenewing() ? "renewing" : "fixed");
        command.add(Long.toString(ANSWER_TIMEOUT.toMillis()));
        command.add(shape.argument());
        try {
            Path stderr = Files.createTempFile("locksmith-victim-", ".log");
            Process process = new ProcessBuilder(command)
                    .redirectError(ProcessBuilder.Redirect.appendTo(stderr.toFile()))
                    .start();
            return new VictimProcess(process, stderr, lockName);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start the victim JVM: " + command.get(0), e);
        }
    }

    private void readAnswers() {
        try (BufferedReader in = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = in.readLine()) != null) {
                if (line.startsWith("LOST ")) {
                    lossReports.add(line.substring(5));
                } else {
                    answers.add(line);
                }
            }
        } catch (IOException e) {
            // the child is gone
        }
        answers.add("EOF");
    }

    /**
     * Waits until the victim holds the lock.
     *
     * @return its fencing token
     * @throws AssertionError if it could not acquire, failed or did not answer within {@code bound}
     */
    public long awaitAcquired(Duration bound) {
        String answer = next(bound, "to acquire '" + lockName + "'");
        if (!answer.startsWith("ACQUIRED ")) {
            throw new AssertionError("the victim JVM did not acquire '" + lockName + "': " + answer + diagnostics());
        }
        String[] parts = answer.split(" ");
        token = Long.parseLong(parts[1]);
        clientId = parts[2];
        return token;
    }

    /** The victim's fencing token, after {@link #awaitAcquired}. */
    public long token() {
        return token;
    }

    /** The victim's client id, after {@link #awaitAcquired}. */
    public String clientId() {
        return clientId;
    }

    /** The process id of the child JVM. */
    public long pid() {
        return process.pid();
    }

    /**
     * Asks the victim to write: it checks {@link io.locksmith.Lease#isHeld()} and reports its token; then this
     * JVM writes {@code value} through {@code register} with that token, on the victim's behalf, whatever the
     * check said (the worst case: a holder that writes without checking).
     *
     * @throws AssertionError if the victim does not answer within 20 s
     */
    public FencedWrite fencedWrite(FencedRegister register, long value) {
        send("write");
        String answer = next(ANSWER_TIMEOUT, "to answer a write");
        if (!answer.startsWith("WRITE ")) {
            throw new AssertionError("the victim JVM answered '" + answer + "' to a write" + diagnostics());
        }
        String[] parts = answer.split(" ");
        long writeToken = Long.parseLong(parts[1]);
        boolean held = Boolean.parseBoolean(parts[2]);
        boolean accepted = register.write(writeToken, "victim-" + clientId, value);
        return new FencedWrite(writeToken, held, parts[3], accepted);
    }

    /** The loss reasons the victim's {@code onLost} callback reported so far, e.g. {@code [EXPIRED]}. */
    public List<String> lossReports() {
        return List.copyOf(lossReports);
    }

    /** Releases the victim's lease and waits for it to say so. */
    public void release() {
        send("release");
        String answer = next(ANSWER_TIMEOUT, "to release");
        if (!answer.equals("RELEASED")) {
            throw new AssertionError("the victim JVM answered '" + answer + "' to a release" + diagnostics());
        }
    }

    /** Freezes the victim with SIGSTOP: its renewals and its work stop together. */
    public void pause() {
        signal("STOP");
    }

    /** Lets a paused victim run again with SIGCONT. */
    public void resume() {
        signal("CONT");
    }

    /** Kills the victim with SIGKILL: no release, no clean-up, its TCP connections closed by the kernel. */
    public void kill() {
        process.destroyForcibly();
        try {
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                throw new IllegalStateException("the victim JVM " + pid() + " survived kill -9 for 10 s");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while killing the victim JVM", e);
        }
    }

    /** Whether the child JVM is still running. */
    public boolean isAlive() {
        return process.isAlive();
    }

    private void signal(String signal) {
        try {
            Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(process.pid())).start();
            if (!kill.waitFor(5, TimeUnit.SECONDS) || kill.exitValue() != 0) {
                throw new IllegalStateException("kill -" + signal + " " + process.pid() + " failed");
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot signal the victim JVM", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while signalling the victim JVM", e);
        }
    }

    private void send(String command) {
        try {
            commands.write(command + "\n");
            commands.flush();
        } catch (IOException e) {
            throw new AssertionError("the victim JVM is gone (" + e + ")" + diagnostics(), e);
        }
    }

    private String next(Duration bound, String what) {
        try {
            String answer = answers.poll(bound.toMillis(), TimeUnit.MILLISECONDS);
            if (answer == null) {
                throw new AssertionError("the victim JVM did not answer within " + bound + " " + what + diagnostics());
            }
            return answer;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted while waiting for the victim JVM " + what, e);
        }
    }

    private String diagnostics() {
        try {
            List<String> lines = Files.readAllLines(stderr);
            return "; its stderr (" + stderr + ") ends with:\n"
                    + String.join("\n", lines.subList(Math.max(0, lines.size() - 15), lines.size()));
        } catch (IOException e) {
            return "";
        }
    }

    /** Kills the child (after SIGCONT, in case it is paused). */
    @Override
    public void close() {
        if (process.isAlive()) {
            try {
                resume();
            } catch (RuntimeException ignored) {
                // it is being killed anyway
            }
            process.destroyForcibly();
            try {
                process.waitFor(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        try {
            Files.deleteIfExists(stderr);
        } catch (IOException ignored) {
            // a temp file
        }
    }

    @Override
    public String toString() {
        return "VictimProcess[pid " + process.pid() + ", lock '" + lockName + "', token " + token + "]";
    }
}
