package io.locksmith.tck.fault;

import io.locksmith.Lease;
import io.locksmith.LockClient;
import io.locksmith.LockLostException;
import io.locksmith.LockOptions;
import io.locksmith.tck.LockShape;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Optional;

/**
 * The lock holder that a fault test pauses (SIGSTOP), resumes (SIGCONT) or kills (-9): a separate JVM, so the
 * pause stops its renewals and its work together, as a long GC pause or a frozen VM would. Started by
 * {@link VictimProcess}; not meant to be run by hand.
 *
 * <p>Arguments: {@code URI LOCK_NAME LEASE_MILLIS renewing|fixed ACQUIRE_WAIT_MILLIS [mutex|write-lock|semaphore]}
 * (the last a {@link LockShape#argument()}, default {@code mutex}). It opens a client, acquires the lock in that
 * shape and answers on stdout, one line each:
 * <ul>
 * <li>{@code ACQUIRED <token> <clientId>}, {@code NOT_ACQUIRED} or {@code ERROR <message>} once;</li>
 * <li>{@code LOST <reason>} whenever the client reports the lease lost (its {@code onLost} callback);</li>
 * <li>to the stdin command {@code write}: {@code WRITE <token> <held> <lossReason|->}, where {@code held} is
 *     {@link Lease#isHeld()} checked just before the write, as a careful holder checks before writing;</li>
 * <li>to {@code release}: {@code RELEASED}; to {@code exit} (or end of input): {@code BYE}, then it exits.</li>
 * </ul>
 * The fenced resource lives in the test's JVM: the victim reports the token it would write with, and the
 * test writes through its {@link io.locksmith.tck.FencedRegister} on the victim's behalf.
 */
public final class VictimMain {

    private static final PrintStream OUT = new PrintStream(System.out, true, StandardCharsets.UTF_8);

    private VictimMain() {
    }

    public static void main(String[] args) throws IOException {
        // Standard output is the protocol channel (OUT above keeps it): whatever else writes there, a logging
        // back end's console appender for one, goes to standard error, so no log line is read as an answer.
        System.setOut(System.err);
        if (args.length != 5 && args.length != 6) {
            say("ERROR usage: VictimMain URI LOCK_NAME LEASE_MILLIS renewing|fixed ACQUIRE_WAIT_MILLIS"
                    + " [mutex|write-lock|semaphore]");
            System.exit(2);
        }
        LockShape shape;
        try {
            shape = args.length == 6 ? LockShape.fromArgument(args[5]) : LockShape.MUTEX;
        } catch (IllegalArgumentException e) {
            say("ERROR " + oneLine(e));
            System.exit(2);
            return;
        }
        LockOptions.Builder options = LockOptions.builder().leaseTime(Duration.ofMillis(Long.parseLong(args[2])));
        if (args[3].equals("fixed")) {
            options.fixedLease();
        } else {
            options.renewing();
        }
        Duration wait = Duration.ofMillis(Long.parseLong(args[4]));
        try (LockClient client = open(args[0], STARTUP)) {
            Optional<Lease> acquired;
            try {
                acquired = shape.lock(client, args[1], options.build()).tryAcquire(wait);
            } catch (RuntimeException e) {
                say("ERROR " + oneLine(e));
                return;
            }
            if (acquired.isEmpty()) {
                say("NOT_ACQUIRED");
                return;
            }
            Lease lease = acquired.get();
            lease.onLost(event -> say("LOST " + event.reason()));
            say("ACQUIRED " + lease.fencingToken() + " " + client.clientId());
            serve(lease);
        } catch (RuntimeException e) {
            say("ERROR " + oneLine(e));
        }
        say("BYE");
        System.exit(0);
    }

    /**
     * How long a victim may take to open its client. A victim is a fresh JVM: its first connection loads the store
     * client's classes (Netty, gRPC, a JDBC pool) and runs the hand-shake within the URI's time-out, which a loaded
     * machine missed (300 ms URIs, "cannot connect", at load 15-20). How the store behaves when a holder starts is
     * not what a fault rule tests, so the opening is tried again until this passes; the acquire keeps its own bound.
     */
    private static final Duration STARTUP = Duration.ofSeconds(15);

    /** Opens the client, trying again after a store error until {@code within} passed; the last error then. */
    private static LockClient open(String uri, Duration within) {
        long deadline = System.nanoTime() + within.toNanos();
        while (true) {
            try {
                return LockClient.open(uri);
            } catch (io.locksmith.LockStoreException e) {
                if (System.nanoTime() - deadline >= 0) {
                    throw e;
                }
                java.util.concurrent.locks.LockSupport.parkNanos(java.util.concurrent.TimeUnit.MILLISECONDS.toNanos(100));
            }
        }
    }

    private static void serve(Lease lease) throws IOException {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        String command;
        while ((command = in.readLine()) != null) {
            switch (command.strip()) {
                case "write" -> {
                    boolean held = lease.isHeld();
                    String reason = "-";
                    if (!held) {
                        try {
                            lease.ensureHeld();
                        } catch (LockLostException e) {
                            reason = e.event() == null ? "LOST" : e.event().reason().name();
                        } catch (IllegalMonitorStateException e) {
                            reason = "CLOSED";
                        }
                    }
                    say("WRITE " + lease.fencingToken() + " " + held + " " + reason);
                }
                case "release" -> {
                    try {
                        lease.close();
                        say("RELEASED");
                    } catch (RuntimeException e) {
                        say("ERROR " + oneLine(e));
                    }
                }
                case "exit" -> {
                    return;
                }
                default -> say("ERROR unknown command '" + command + "'");
            }
        }
    }

    private static void say(String line) {
        synchronized (OUT) {
            OUT.println(line);
        }
    }

    private static String oneLine(Throwable e) {
        return e.toString().replace('\n', ' ').replace('\r', ' ');
    }
}
