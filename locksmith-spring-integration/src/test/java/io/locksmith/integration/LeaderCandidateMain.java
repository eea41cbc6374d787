package io.locksmith.integration;

import io.locksmith.LockClient;
import io.locksmith.LockOptions;
import org.springframework.integration.leader.Context;
import org.springframework.integration.leader.DefaultCandidate;
import org.springframework.integration.leader.event.DefaultLeaderEventPublisher;
import org.springframework.integration.support.leader.LockRegistryLeaderInitiator;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * One application instance for {@link LeaderInitiatorAcrossJvmsTest}: a {@link LockRegistryLeaderInitiator} on a
 * {@link LocksmithLockRegistry}, as a Spring Integration application declares it. It prints {@code GRANTED <id>
 * <token>} and {@code REVOKED <id>} as its candidate is told, and stops (as its application context would close) on
 * {@code stop} on its standard input or when its input closes (the test ended).
 *
 * <p>Arguments: the store URI, the candidate's id, the role (the lock key), the lease time in milliseconds.
 */
public final class LeaderCandidateMain {

    private LeaderCandidateMain() {
    }

    public static void main(String[] args) throws Exception {
        String uri = args[0];
        String id = args[1];
        String role = args[2];
        Duration lease = Duration.ofMillis(Long.parseLong(args[3]));
        try (LockClient client = LockClient.builder().uri(uri)
                .defaultLockOptions(LockOptions.builder().leaseTime(lease).build()).build()) {
            LocksmithLockRegistry registry = new LocksmithLockRegistry(client, "leaders");
            CountDownLatch revoked = new CountDownLatch(1);
            LockRegistryLeaderInitiator initiator = new LockRegistryLeaderInitiator(registry,
                    new DefaultCandidate(id, role) {
                        @Override
                        public void onGranted(Context context) {
                            // The initiator's thread holds the lock while it calls this: the term's token is its.
                            say("GRANTED " + id + " " + registry.obtain(role).fencingToken());
                        }

                        @Override
                        public void onRevoked(Context context) {
                            say("REVOKED " + id);
                            revoked.countDown();
                        }
                    });
            initiator.setLeaderEventPublisher(new DefaultLeaderEventPublisher(event -> { }));
            initiator.start();
            say("STARTED " + id);
            BufferedReader commands = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
            String command;
            while ((command = commands.readLine()) != null && !command.equals("stop")) {
                System.err.println("unknown command: " + command);
            }
            initiator.stop();
            // Stopping interrupts the initiator's thread, which then unlocks and is told its term ended: wait for it
            // before the client closes, as an application context would while it stops its beans.
            revoked.await(30, TimeUnit.SECONDS);
        }
        say("STOPPED " + id);
    }

    private static synchronized void say(String line) {
        System.out.println(line);
        System.out.flush();
    }
}
