package io.locksmith.lockctl;

import io.locksmith.HolderIdentity;
import io.locksmith.LockClient;
import io.locksmith.LockInfo;
import io.locksmith.spi.LockUri;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;

/** {@code lockctl inspect}: who holds these locks, with what token, for how long. */
@Command(name = "inspect", mixinStandardHelpOptions = true,
        description = {
                "Shows who holds the named locks: holder identity (client, process, thread, trace id), fencing token, "
                        + "remaining lease, and the waiters where the store keeps a queue.",
                "--prefix lists the held locks whose names start with a prefix, through the store's backend: mem://, "
                        + "Redis (single, Sentinel, RedLock), ZooKeeper, etcd and PostgreSQL can list.",
                "--semaphore, --read-write and --election show a primitive's holders: each permit lease with its "
                        + "permits, the readers or the writer, the current leader and its term.",
                "Reads only."})
final class InspectCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Mixin
    StoreOption store;

    @Parameters(paramLabel = "NAME", arity = "0..*", description = "Lock names to inspect.")
    List<String> names = new ArrayList<>();

    @Option(names = "--prefix", paramLabel = "PREFIX", description = "Also inspect every held lock whose name starts with PREFIX.")
    String prefix;

    @Option(names = "--semaphore", paramLabel = "NAME=PERMITS",
            description = "Show the permit leases of the semaphore NAME of PERMITS permits (repeatable).")
    List<String> semaphores = new ArrayList<>();

    @Option(names = "--read-write", paramLabel = "NAME[=READERS]",
            description = "Show the readers or the writer of the read-write lock NAME (READERS: its maxReaders, "
                    + "default 16; repeatable).")
    List<String> readWriteLocks = new ArrayList<>();

    @Option(names = "--election", paramLabel = "NAME", description = "Show the current leader and term of the "
            + "election NAME, or that there is none (repeatable).")
    List<String> elections = new ArrayList<>();

    @Option(names = "--json", description = "Print JSON for scripts.")
    boolean json;

    @Option(names = "--timeout", paramLabel = "DURATION", defaultValue = "10s",
            description = "How long connecting, and then listing, may take (default: ${DEFAULT-VALUE}).")
    String timeout;

    @Override
    @SuppressWarnings("try") // the resource is held for its scope only
    public Integer call() {
        String uri = store.uri();
        if (names.isEmpty() && prefix == null && semaphores.isEmpty() && readWriteLocks.isEmpty()
                && elections.isEmpty()) {
            throw new UsageException("give at least one lock NAME, or --prefix PREFIX, --semaphore, --read-write or"
                    + " --election");
        }
        Duration listTimeout = DoctorCommand.parseDuration(timeout, "--timeout");
        List<PrimitiveHolders.Query> primitives = PrimitiveHolders.queries(semaphores, readWriteLocks, elections);
        Map<String, Optional<LockInfo>> results = new LinkedHashMap<>();
        List<PrimitiveHolders.Result> primitiveResults = new ArrayList<>();
        try (Progress ignored = Progress.start(spec.commandLine().getErr(), "inspecting",
                () -> results.size() + " of " + names.size());
             LockClient client = StoreConnection.open(uri, listTimeout)) {
            for (String name : new LinkedHashSet<>(names)) {
                results.put(name, client.inspect(name));
            }
            if (prefix != null) {
                for (LockInfo held : listed(client, uri, listTimeout)) {
                    results.putIfAbsent(held.lockName(), Optional.of(held));
                }
            }
            for (PrimitiveHolders.Query query : primitives) {
                primitiveResults.add(query.read(client, listTimeout));
            }
        }
        PrintWriter out = spec.commandLine().getOut();
        if (json) {
            printJson(out, uri, results, primitiveResults);
        } else {
            if (!names.isEmpty() || prefix != null) {
                printTable(out, results);
            }
            PrimitiveHolders.printTable(out, primitiveResults);
        }
        return ExitCode.OK;
    }

    private List<LockInfo> listed(LockClient client, String uri, Duration listTimeout) {
        try {
            return client.list(prefix, listTimeout);
        } catch (UnsupportedOperationException e) {
            throw new UsageException("--prefix is not supported for " + LockUri.parse(uri).scheme() + "://: "
                    + e.getMessage());
        }
    }

    private static void printTable(PrintWriter out, Map<String, Optional<LockInfo>> results) {
        if (results.isEmpty()) {
            out.println("no held locks match");
            return;
        }
        Table table = new Table("NAME", "STATE", "CLIENT", "PROCESS", "THREAD", "TRACE", "TOKEN", "REMAINING", "WAITERS");
        for (Map.Entry<String, Optional<LockInfo>> entry : results.entrySet()) {
            Optional<LockInfo> info = entry.getValue();
            if (info.isEmpty()) {
                table.row(entry.getKey(), "free");
                continue;
            }
            LockInfo lock = info.get();
            HolderIdentity holder = lock.holder();
            table.row(entry.getKey(), "held", holder.clientId(), holder.process(),
                    holder.thread() + (holder.threadId() >= 0 ? "#" + holder.threadId() : ""),
                    holder.trace().orElse("-"), lock.fencingToken(),
                    lock.timeToLive().map(ttl -> ttl.toMillis() + " ms").orElse("session"),
                    lock.waiters().isEmpty() ? "-" : lock.waiters().stream().map(HolderIdentity::clientId)
                            .collect(Collectors.joining(",")));
        }
        table.print(out);
    }

    private static void printJson(PrintWriter out, String uri, Map<String, Optional<LockInfo>> results,
                                  List<PrimitiveHolders.Result> primitives) {
        List<Object> locks = new ArrayList<>();
        for (Map.Entry<String, Optional<LockInfo>> entry : results.entrySet()) {
            Map<String, Object> item = new LinkedHashMap<>();
            item.put("name", entry.getKey());
            item.put("held", entry.getValue().isPresent());
            entry.getValue().ifPresent(lock -> {
                item.put("holder", holder(lock.holder()));
                item.put("fencingToken", lock.fencingToken());
                item.put("remainingMillis", lock.timeToLive().map(Duration::toMillis).orElse(null));
                item.put("waiters", lock.waiters().stream().map(InspectCommand::holder).collect(Collectors.toList()));
            });
            locks.add(item);
        }
        Map<String, Object> document = new LinkedHashMap<>();
        document.put("uri", LockUri.redact(uri));
        document.put("locks", locks);
        if (!primitives.isEmpty()) {
            document.put("primitives", primitives.stream().map(PrimitiveHolders.Result::toJson)
                    .collect(Collectors.toList()));
        }
        out.println(Json.write(document));
    }

    static Map<String, Object> holder(HolderIdentity holder) {
        Map<String, Object> item = new LinkedHashMap<>();
        item.put("clientId", holder.clientId());
        item.put("process", holder.process());
        item.put("thread", holder.thread());
        item.put("threadId", holder.threadId());
        item.put("traceId", holder.traceId());
        return item;
    }
}
