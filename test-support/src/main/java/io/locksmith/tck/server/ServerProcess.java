package io.locksmith.tck.server;

import io.locksmith.tck.fault.Executables;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A store server run as an external process for tests (redis-server, redis-sentinel, etcd): started on
 * loopback, with hooks to kill it (-9), pause it (SIGSTOP) and resume it (SIGCONT), and to restart it with
 * the same arguments. Its output goes to a log file in its work directory, named in failures.
 *
 * <p>A missing binary is a failure with an install hint, never a skipped test.
 */
public final class ServerProcess implements AutoCloseable {

    private final String name;
    private final List<String> command;
    private final Path workDir;
    private final Path log;
    private final int port;
    private Process process;
    private final List<Path> deletedOnClose = new java.util.concurrent.CopyOnWriteArrayList<>();

    private ServerProcess(String name, List<String> command, Path workDir, int port) {
        this.name = name;
        this.command = List.copyOf(command);
        this.workDir = workDir;
        this.log = workDir.resolve(name + ".log");
        this.port = port;
    }

    /**
     * Starts {@code command} in {@code workDir} and waits until it listens on {@code port}.
     *
     * @param name        for messages and the log file name, e.g. {@code redis-6379}
     * @param installHint what to run when the binary is missing, e.g. {@code apt-get install -y redis-server}
     * @throws IllegalStateException if the binary is missing (with the hint) or the server does not come up
     */
    public static ServerProcess start(String name, List<String> command, Path workDir, int port, String installHint) {
        requireBinary(command.get(0), installHint);
        ServerProcess server = new ServerProcess(name, command, workDir, port);
        server.startProcess();
        return server;
    }

    /**
     * Fails with an install hint if {@code binary} is not on the PATH (or not executable, if a path).
     *
     * @return the absolute path of the binary
     */
    public static String requireBinary(String binary, String installHint) {
        return Executables.find(binary).orElseThrow(() -> new IllegalStateException("'" + binary
                + "' is not installed, and the tests need a real server. Install it: " + installHint
                + " (or run scripts/install-servers.sh)"));
    }

    private void startProcess() {
        try {
            Files.createDirectories(workDir);
            process = new ProcessBuilder(command)
                    .directory(workDir.toFile())
                    .redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
                    .start();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start " + name + ": " + command, e);
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (!FreePorts.isListening(port)) {
            if (!process.isAlive()) {
                throw new IllegalStateException(name + " exited with code " + process.exitValue()
                        + " before listening on port " + port + "; its log " + log + " ends with:\n" + tail());
            }
            if (System.nanoTime() > deadline) {
                process.destroyForcibly();
                throw new IllegalStateException(name + " did not listen on 127.0.0.1:" + port + " within 20 s; log "
                        + log + ":\n" + tail());
            }
            try {
                Thread.sleep(20); // polling a socket: there is no event to await
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                process.destroyForcibly();
                throw new IllegalStateException("interrupted while starting " + name, e);
            }
        }
    }

    /** The last lines of the server's log, for failure messages. */
    public String tail() {
        try {
            List<String> lines = Files.exists(log) ? Files.readAllLines(log) : List.of();
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 20), lines.size()));
        } catch (IOException e) {
            return "(log unreadable: " + e.getMessage() + ")";
        }
    }

    public String name() {
        return name;
    }

    public int port() {
        return port;
    }

    public Path workDir() {
        return workDir;
    }

    public long pid() {
        return process.pid();
    }

    public boolean isAlive() {
        return process != null && process.isAlive();
    }

    /**
     * Kills the server with SIGKILL and waits for it to be gone: a crash, no clean shutdown. Its child processes
     * (PostgreSQL's backends) are killed too, as they die with the machine in a real crash, and would otherwise
     * keep the shared memory a restarted server needs.
     */
    public void kill() {
        if (process != null && process.isAlive()) {
            // Frozen first, so that it forks no child between the listing and its death (a PostgreSQL backend
            // forked then would live on as an orphan, serving a client on the crashed server's memory); listed
            // before it dies, since orphans are no longer its descendants.
            try {
                signal("STOP");
            } catch (RuntimeException e) {
                // it is being killed anyway
            }
            List<ProcessHandle> children = process.descendants().toList();
            process.destroyForcibly();
            children.forEach(ProcessHandle::destroyForcibly);
            for (ProcessHandle child : children) {
                try {
                    child.onExit().get(10, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
                    // gone or stuck: the wait for the parent below reports what matters
                }
            }
            try {
                process.waitFor(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /**
     * Stops the process with SIGSTOP: it keeps its sockets but answers nothing, as a long GC pause or a frozen VM
     * would. Its child processes are stopped too (parent first, so it forks no new one meanwhile): a PostgreSQL
     * server's backends, which serve the open connections, would otherwise go on answering.
     */
    public void pause() {
        signal("STOP");
        process.descendants().forEach(child -> signal("STOP", child.pid()));
    }

    /** Resumes a paused process and its children with SIGCONT. */
    public void resume() {
        process.descendants().forEach(child -> signal("CONT", child.pid()));
        signal("CONT");
    }

    private void signal(String signal) {
        signal(signal, process.pid());
    }

    private void signal(String signal, long pid) {
        try {
            Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(pid)).start();
            if (!kill.waitFor(5, TimeUnit.SECONDS) || kill.exitValue() != 0) {
                if (pid != process.pid() && ProcessHandle.of(pid).isEmpty()) {
                    return; // a child that ended meanwhile
                }
                throw new IllegalStateException("kill -" + signal + " " + pid + " failed for " + name);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot signal " + name, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while signalling " + name, e);
        }
    }

    /** Starts the server again with the same command, after {@link #kill()}. */
    public void restart() {
        kill();
        startProcess();
    }

    /** The command line, for messages. */
    public List<String> command() {
        return new ArrayList<>(command);
    }

    /**
     * Makes {@link #close()} delete the work directory too (its log included): for servers whose data is large
     * (a PostgreSQL cluster is about 40 MB), so that test runs do not fill the temporary directory.
     *
     * @return this server
     */
    public ServerProcess deleteWorkDirOnClose() {
        return deleteOnClose(workDir);
    }

    /**
     * Makes {@link #close()} delete {@code dir} (recursively) once the server is gone: the server's data, which
     * {@link #kill()} and {@link #restart()} keep. An etcd member's data directory is about 120-400 MB (its
     * write-ahead log is preallocated in 64 MB segments); left behind by every test it filled a disk.
     *
     * @return this server
     */
    public ServerProcess deleteOnClose(Path dir) {
        deletedOnClose.add(dir);
        return this;
    }

    /** Kills the server (SIGCONT first, in case it was paused). */
    @Override
    public void close() {
        if (process != null && process.isAlive()) {
            try {
                resume();
            } catch (RuntimeException ignored) {
                // it is being killed anyway
            }
            kill();
        }
        deletedOnClose.forEach(ServerProcess::deleteRecursively);
    }

    /** Deletes {@code dir} and everything under it; what cannot be deleted is left to the system's clean-up. */
    public static void deleteRecursively(Path dir) {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(dir)) {
            for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(path);
            }
        } catch (IOException | UncheckedIOException e) {
            // Left for the system's temporary-file clean-up; a test must not fail on it.
        }
    }

    @Override
    public String toString() {
        return name + " (pid " + (process == null ? "-" : process.pid()) + ", port " + port + ")";
    }
}
