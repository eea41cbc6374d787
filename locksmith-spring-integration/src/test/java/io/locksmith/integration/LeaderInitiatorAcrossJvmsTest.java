package io.locksmith.integration;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import org.awaitility.core.ConditionTimeoutException;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Spring Integration's {@code LockRegistryLeaderInitiator} on a {@link LocksmithLockRegistry}, three JVMs
 * ({@link LeaderCandidateMain}) as three application instances on one store: exactly one leads; a leader that stops
 * (its application context closing) hands over to another; a leader killed with {@code SIGKILL} (no release) is followed by exactly one other once its
 * lease runs out; every term's fencing token is greater than the one before. A subclass per store starts the store.
 */
abstract class LeaderInitiatorAcrossJvmsTest {

    /**
     * The lease of the instances' locks: short, so that a killed leader's term ends soon, and three times the
     * renewal interval, so that a renewal the loaded CI machine delays does not end a term (which would be safe, a new
     * term with a greater token, but is not what this test looks at).
     */
    private static final Duration LEASE = Duration.ofSeconds(3);

    private final List<Instance> instances = new ArrayList<>();
    /** Every GRANTED and REVOKED line, in the order the test read them. */
    private final List<String> events = new CopyOnWriteArrayList<>();
    /** Each instance's latest word: the candidate's id to "GRANTED" or "REVOKED". */
    private final Map<String, String> state = new ConcurrentHashMap<>();
    private final List<Long> tokens = new CopyOnWriteArrayList<>();
    private final List<String> started = new CopyOnWriteArrayList<>();

    /** Starts the store; the returned server is closed after the test. */
    protected abstract LockRegistryBehaviourTest.Server startServer();

    private LockRegistryBehaviourTest.Server server;
    private boolean passed;

    @AfterEach
    void stopAll() throws Exception {
        for (Instance instance : instances) {
            // A failed run leaves each live instance's threads in its log, to show where it stood.
            if (!passed && instance.process.isAlive()) {
                new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "jcmd").toString(),
                        Long.toString(instance.process.pid()), "Thread.print")
                        .redirectOutput(ProcessBuilder.Redirect.appendTo(log(instance.id).toFile()))
                        .start().waitFor();
            }
        }
        for (Instance instance : instances) {
            instance.process.destroyForcibly();
        }
        for (Instance instance : instances) {
            try {
                instance.process.waitFor(30, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        if (server != null) {
            server.close();
        }
    }

    @Test
    void exactlyOneOfThreeJvmsLeadsThroughAStopAndAKill() throws IOException {
        server = startServer();
        String role = "billing-" + UUID.randomUUID();
        for (int i = 1; i <= 3; i++) {
            // One at a time: three JVMs starting at once on a small CI machine can keep a store from answering a
            // client's first call within its time-out.
            String id = "node-" + i;
            instances.add(start(id, role));
            await(id + " started (its standard error: " + log(id) + ")").atMost(Duration.ofSeconds(60))
                    .until(() -> started.contains(id));
        }
        String first = awaitOneLeaderOtherThan(null);

        leader(first).send("stop");
        await("the stopping leader is told its term ended").atMost(Duration.ofSeconds(30))
                .until(() -> "REVOKED".equals(state.get(first)));
        String second = awaitOneLeaderOtherThan(first);

        Instance killed = leader(second);
        killed.process.destroyForcibly();
        state.remove(second);
        String third = awaitOneLeaderOtherThan(second);
        assertNotEquals(second, third);

        // A term may also end and start again on one instance (a renewal late on a loaded machine): each new term,
        // wherever, has a greater token.
        for (int i = 1; i < tokens.size(); i++) {
            assertTrue(tokens.get(i) > tokens.get(i - 1), "term tokens do not increase: " + events);
        }
        assertTrue(tokens.size() >= 3, "at least three terms, one per leader: " + events);
        passed = true;
    }

    /** Waits until exactly one live instance leads and it is not {@code previous}; returns its id. */
    private String awaitOneLeaderOtherThan(String previous) {
        try {
            return await().atMost(LEASE.multipliedBy(3).plusSeconds(30))
                    .until(() -> {
                        List<String> leaders = state.entrySet().stream()
                                .filter(entry -> entry.getValue().equals("GRANTED")).map(Map.Entry::getKey).toList();
                        return leaders.size() == 1 && !leaders.get(0).equals(previous) ? leaders.get(0) : null;
                    }, leader -> leader != null);
        } catch (ConditionTimeoutException e) {
            throw new AssertionError("no single leader other than " + previous + "; events " + events
                    + "; each instance's standard error (and threads, if it still ran): " + log("node-N"), e);
        }
    }

    private Instance leader(String id) {
        return instances.stream().filter(instance -> instance.id.equals(id)).findFirst().orElseThrow();
    }

    private Instance start(String id, String role) throws IOException {
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        Process process = new ProcessBuilder(java.toString(), "-cp", System.getProperty("java.class.path"),
                LeaderCandidateMain.class.getName(), server.uri(), id, role, Long.toString(LEASE.toMillis()))
                .redirectError(ProcessBuilder.Redirect.to(log(id).toFile()))
                .start();
        Thread reader = new Thread(() -> read(process), "read-" + id);
        reader.setDaemon(true);
        reader.start();
        return new Instance(id, process,
                new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8));
    }

    /** Where an instance's standard error goes, for a failure to show (the test's target directory). */
    private Path log(String id) {
        return Path.of("target", getClass().getSimpleName() + "-" + id + ".log");
    }

    private void read(Process process) {
        try (BufferedReader lines = new BufferedReader(
                new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = lines.readLine()) != null) {
                String[] words = line.split(" ");
                if (!line.matches("(GRANTED \\S+ \\d+|REVOKED \\S+|STARTED \\S+|STOPPED \\S+)")) {
                    events.add("UNEXPECTED OUTPUT: " + line);
                    continue;
                }
                if (words[0].equals("GRANTED")) {
                    tokens.add(Long.parseLong(words[2]));
                }
                if (words[0].equals("STARTED")) {
                    started.add(words[1]);
                } else if (!words[0].startsWith("ST")) {
                    events.add(line);
                    state.put(words[1], words[0]);
                }
            }
        } catch (IOException e) {
            // The process ended.
        }
    }

    private record Instance(String id, Process process, Writer input) {
        void send(String command) throws IOException {
            input.write(command + "\n");
            input.flush();
        }
    }
}
