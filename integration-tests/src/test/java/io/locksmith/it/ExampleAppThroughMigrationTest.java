package io.locksmith.it;

import io.locksmith.examples.FencedFileInventory;
import io.locksmith.examples.StockServiceApp;
import io.locksmith.migrate.MigrationPhase;
import io.locksmith.safety.Deployment;
import io.locksmith.safety.Deployments;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static io.locksmith.migrate.MigrationPhase.DUAL;
import static io.locksmith.migrate.MigrationPhase.FROM;
import static io.locksmith.migrate.MigrationPhase.TO;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The unmodified example application ({@link StockServiceApp}), as separate processes, through a rolling
 * migration from Redis to etcd: only its {@code LOCKSMITH_URI} changes. Instances of neighbouring phases run
 * at the same time, as in a rolling restart, against one shared fenced inventory: every order is served,
 * stock ends exact, and no write is rejected as stale.
 */
class ExampleAppThroughMigrationTest {

    private static final int ORDERS = 30;

    @Test
    void theSameAppKeepsWorkingInEveryPhase(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("inventory.bin");
        FencedFileInventory inventory = new FencedFileInventory(file);
        inventory.reset(1_000);
        try (Deployment redis = Deployments.start("redis-single"); Deployment etcd = Deployments.start("etcd-single")) {
            List<String> outputs = new ArrayList<>();
            // Rolling restart: old + dual side by side, then dual + new side by side.
            outputs.addAll(runTogether(file, dir, redis, etcd, FROM, DUAL));
            outputs.addAll(runTogether(file, dir, redis, etcd, DUAL, TO));
            String all = String.join("\n", outputs);
            assertEquals(1_000 - 4 * ORDERS, inventory.stock(), all);
            for (String output : outputs) {
                assertTrue(output.contains("{DEDUCTED=" + ORDERS + ", SOLD_OUT=0, STALE_TOKEN_REJECTED=0}"), output);
            }
        }
    }

    private static List<String> runTogether(Path inventory, Path dir, Deployment oldStore, Deployment newStore,
                                            MigrationPhase... phases) throws IOException, InterruptedException {
        List<Process> processes = new ArrayList<>();
        List<Path> logs = new ArrayList<>();
        for (MigrationPhase phase : phases) {
            Path log = dir.resolve("app-" + phase.configName() + "-" + System.nanoTime() + ".log");
            ProcessBuilder builder = new ProcessBuilder(javaBinary(), "-cp", System.getProperty("java.class.path"),
                    StockServiceApp.class.getName(), inventory.toString(), Integer.toString(ORDERS), "3")
                    .redirectErrorStream(true)
                    .redirectOutput(log.toFile());
            // An application's command time-out, not the fault kit's 300 ms on Redis: a JVM that has just started
            // on a busy machine once took longer than that for its first connection's handshake.
            builder.environment().put("LOCKSMITH_URI", MigrationUris.of(patient(oldStore.uri()), patient(newStore.uri()),
                    phase));
            processes.add(builder.start());
            logs.add(log);
        }
        List<String> outputs = new ArrayList<>();
        for (int i = 0; i < processes.size(); i++) {
            Process process = processes.get(i);
            boolean finished = process.waitFor(120, TimeUnit.SECONDS);
            if (!finished) {
                process.destroyForcibly();
            }
            String output = Files.readString(logs.get(i), StandardCharsets.UTF_8);
            assertTrue(finished, "app in phase " + phases[i] + " did not finish:\n" + output);
            assertEquals(0, process.exitValue(), "app in phase " + phases[i] + " failed:\n" + output);
            outputs.add(phases[i] + ": " + output.strip());
        }
        return outputs;
    }

    /**
     * {@code uri} with a command time-out of 15 s instead of the deployment's: each app is a fresh JVM whose first
     * etcd client loads gRPC before its probe lease answers, which took over 5 s in CI runs at load 15-25.
     */
    private static String patient(String uri) {
        String withoutTimeout = uri.replaceAll("([?&])timeout=[^&]*&?", "$1").replaceAll("[?&]$", "");
        return withoutTimeout + (withoutTimeout.contains("?") ? "&" : "?") + "timeout=15s";
    }

    private static String javaBinary() {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }
}
