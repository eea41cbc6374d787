package io.locksmith.lockctl;

import io.locksmith.DistributedReadWriteLock;
import io.locksmith.DistributedSemaphore;
import io.locksmith.HolderIdentity;
import io.locksmith.LeaderElection;
import io.locksmith.LockClient;
import io.locksmith.LockInfo;

import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * What {@code lockctl inspect} shows of semaphores, read-write locks and elections: the holders of a primitive's
 * store locks, grouped by holder (the permits a client's thread holds, a writer holding every share, a reader, the
 * leader's term). Reads only.
 */
final class PrimitiveHolders {

    /** One primitive to read. */
    record Query(String kind, String name, int size) {

        Result read(LockClient client, Duration timeout) {
            return switch (kind) {
                case "semaphore" -> grouped(client.semaphore(name, size).holders(timeout), false);
                case "read-write lock" -> grouped(client.readWriteLock(name, client.lock(name).options(), size)
                        .holders(timeout), true);
                default -> {
                    LeaderElection election = client.election(name);
                    try {
                        Optional<LockInfo> leader = election.leader(timeout);
                        yield new Result(this, leader.map(info -> List.of(new Holding("leader", List.of(info))))
                                .orElse(List.of()));
                    } finally {
                        election.close();
                    }
                }
            };
        }

        /**
         * The held store locks grouped by holder (client, process, thread, trace): what each holder has. The store keeps
         * no lease id beside a permit, so two leases of one thread show as one holding of their permits together; a
         * read-write lock's holder of every share is its writer.
         */
        private Result grouped(List<LockInfo> held, boolean readWrite) {
            Map<HolderIdentity, List<LockInfo>> byHolder = new LinkedHashMap<>();
            for (LockInfo info : held) {
                byHolder.computeIfAbsent(info.holder(), holder -> new ArrayList<>()).add(info);
            }
            List<Holding> holdings = new ArrayList<>();
            for (List<LockInfo> same : byHolder.values()) {
                String state = !readWrite ? "permits" : same.size() == size ? "writer" : "reader";
                holdings.add(new Holding(state, same));
            }
            return new Result(this, holdings);
        }
    }

    /**
     * What one holder has: its state, and the store locks it holds (a semaphore's permits, a read-write lock's shares,
     * or an election's term).
     */
    record Holding(String state, List<LockInfo> locks) {

        LockInfo first() {
            return locks.get(0);
        }

        /** The store locks' own fencing tokens (a lease's token is its gate's, which the store keeps apart). */
        List<Long> tokens() {
            return locks.stream().map(LockInfo::fencingToken).sorted().toList();
        }

        /** The least remaining lease among its store locks, or empty for session-bound ones. */
        Optional<Duration> remaining() {
            return locks.stream().map(LockInfo::timeToLive).flatMap(Optional::stream).min(Duration::compareTo);
        }
    }

    /** What a query found. */
    record Result(Query query, List<Holding> holdings) {

        Map<String, Object> toJson() {
            Map<String, Object> item = new LinkedHashMap<>();
            item.put("kind", query.kind());
            item.put("name", query.name());
            if (!query.kind().equals("election")) {
                item.put(query.kind().equals("semaphore") ? "permits" : "maxReaders", query.size());
            }
            List<Object> held = new ArrayList<>();
            for (Holding holding : holdings) {
                Map<String, Object> entry = new LinkedHashMap<>();
                entry.put("state", holding.state());
                if (query.kind().equals("election")) {
                    entry.put("term", holding.first().fencingToken());
                } else {
                    entry.put("permits", holding.locks().size());
                    entry.put("storeTokens", holding.tokens());
                }
                entry.put("holder", InspectCommand.holder(holding.first().holder()));
                entry.put("remainingMillis", holding.remaining().map(Duration::toMillis).orElse(null));
                held.add(entry);
            }
            item.put(query.kind().equals("election") ? "leader" : "holders", query.kind().equals("election")
                    ? (held.isEmpty() ? null : held.get(0)) : held);
            return item;
        }
    }

    private PrimitiveHolders() {
    }

    /**
     * Parses the options: {@code NAME=PERMITS} for a semaphore, {@code NAME} or {@code NAME=READERS} for a read-write
     * lock (the last {@code =} separates), {@code NAME} for an election.
     *
     * @throws UsageException naming the option and the value, for a missing or bad size
     */
    static List<Query> queries(List<String> semaphores, List<String> readWriteLocks, List<String> elections) {
        List<Query> queries = new ArrayList<>();
        for (String value : semaphores) {
            int cut = value.lastIndexOf('=');
            if (cut <= 0) {
                throw new UsageException("--semaphore " + value + ": give NAME=PERMITS, the semaphore's number of"
                        + " permits (every client of a name uses the same)");
            }
            queries.add(new Query("semaphore", value.substring(0, cut), size(value.substring(cut + 1),
                    "--semaphore " + value)));
        }
        for (String value : readWriteLocks) {
            int cut = value.lastIndexOf('=');
            if (cut > 0) {
                queries.add(new Query("read-write lock", value.substring(0, cut), size(value.substring(cut + 1),
                        "--read-write " + value)));
            } else {
                queries.add(new Query("read-write lock", value, DistributedReadWriteLock.DEFAULT_MAX_READERS));
            }
        }
        for (String value : elections) {
            queries.add(new Query("election", value, 0));
        }
        return queries;
    }

    private static int size(String text, String option) {
        int size;
        try {
            size = Integer.parseInt(text.strip());
        } catch (NumberFormatException e) {
            throw new UsageException(option + ": '" + text + "' is not a number");
        }
        if (size < 1 || size > DistributedSemaphore.MAX_PERMITS) {
            throw new UsageException(option + ": must be between 1 and " + DistributedSemaphore.MAX_PERMITS
                    + ", was " + size);
        }
        return size;
    }

    static void printTable(PrintWriter out, List<Result> results) {
        if (results.isEmpty()) {
            return;
        }
        Table table = new Table("PRIMITIVE", "NAME", "STATE", "PERMITS", "CLIENT", "PROCESS", "THREAD", "TOKENS",
                "REMAINING");
        for (Result result : results) {
            Query query = result.query();
            if (result.holdings().isEmpty()) {
                table.row(query.kind(), query.name(), query.kind().equals("election") ? "no leader" : "free");
                continue;
            }
            for (Holding holding : result.holdings()) {
                HolderIdentity holder = holding.first().holder();
                List<Long> tokens = holding.tokens();
                table.row(query.kind(), query.name(), holding.state(),
                        query.kind().equals("election") ? "-" : holding.locks().size() + " of " + query.size(),
                        holder.clientId(), holder.process(),
                        holder.thread() + (holder.threadId() >= 0 ? "#" + holder.threadId() : ""),
                        tokens.size() <= 4 ? tokens.stream().map(String::valueOf).collect(Collectors.joining(","))
                                : tokens.get(0) + ".." + tokens.get(tokens.size() - 1),
                        holding.remaining().map(ttl -> ttl.toMillis() + " ms").orElse("session"));
            }
        }
        table.print(out);
    }
}
