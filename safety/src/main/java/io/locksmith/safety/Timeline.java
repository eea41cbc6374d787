package io.locksmith.safety;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * What happened to one lock of a {@link SafetyRun}, in time, as Jepsen's timelines show it: every holding of each
 * client (its own row), the holdings of the victim JVMs and of the failover's holder, the fault windows and the stale
 * writes, all in milliseconds since the run began, on the run's monotonic clock. {@link TimelineChart} draws it;
 * {@link #toJson()} and {@link #read(Path)} keep it beside the report so that the chart can be drawn again.
 *
 * @param deployment     the deployment's name
 * @param lockName       the lock drawn (the first of the run's locks, which the holder faults target first)
 * @param locks          how many locks the run contended for
 * @param durationMillis how long the run lasted
 * @param rows           the name of each row, top to bottom: the in-JVM clients, then the victim JVMs and the
 *                       failover's holder
 * @param holdings       every holding of the lock, in no particular order
 * @param faults         the fault windows, in order: from the moment the fault began to bite (the kill, the freeze,
 *                       the cut) until it ended (the lock free again, the resume, the heal)
 * @param staleWrites    the writes the fenced register judged stale
 */
public record Timeline(String deployment, String lockName, int locks, long durationMillis, List<String> rows,
                       List<Holding> holdings, List<Window> faults, List<StaleWrite> staleWrites) {

    /**
     * One holding of the lock by the client of row {@code row}; {@code frozen} for a victim JVM frozen while it held
     * it (it still believed it held the lock).
     */
    public record Holding(int row, long fromMillis, long toMillis, long token, boolean frozen) {
    }

    /** One fault, while it lasted. */
    public record Window(Fault fault, long fromMillis, long toMillis) {
    }

    /** A write of the client of row {@code row} that the fence rejected, or accepted although stale. */
    public record StaleWrite(int row, long atMillis, long token, boolean accepted) {
    }

    private static final ObjectMapper JSON = new ObjectMapper();

    public Timeline {
        rows = List.copyOf(rows);
        holdings = List.copyOf(holdings);
        faults = List.copyOf(faults);
        staleWrites = List.copyOf(staleWrites);
    }

    /** The timeline as compact JSON: one array of numbers per holding, window and write. */
    public String toJson() {
        ObjectNode json = JSON.createObjectNode();
        json.put("deployment", deployment);
        json.put("lockName", lockName);
        json.put("locks", locks);
        json.put("durationMillis", durationMillis);
        ArrayNode rowNodes = json.putArray("rows");
        rows.forEach(rowNodes::add);
        json.put("holdingsAre", "[row, fromMillis, toMillis, token, frozen 0/1]");
        ArrayNode holdingNodes = json.putArray("holdings");
        for (Holding h : holdings) {
            holdingNodes.addArray().add(h.row()).add(h.fromMillis()).add(h.toMillis()).add(h.token())
                    .add(h.frozen() ? 1 : 0);
        }
        ArrayNode faultNodes = json.putArray("faults");
        for (Window w : faults) {
            faultNodes.addObject().put("fault", w.fault().name()).put("fromMillis", w.fromMillis())
                    .put("toMillis", w.toMillis());
        }
        json.put("staleWritesAre", "[row, atMillis, token, accepted 0/1]");
        ArrayNode writeNodes = json.putArray("staleWrites");
        for (StaleWrite w : staleWrites) {
            writeNodes.addArray().add(w.row()).add(w.atMillis()).add(w.token()).add(w.accepted() ? 1 : 0);
        }
        try {
            return JSON.writeValueAsString(json) + "\n";
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException("cannot write the timeline of " + deployment + " as JSON", e);
        }
    }

    /**
     * Reads a timeline {@link #toJson()} wrote.
     *
     * @throws IOException              if the file cannot be read
     * @throws IllegalArgumentException if it is not a timeline, naming the file and what is wrong
     */
    public static Timeline read(Path file) throws IOException {
        JsonNode root;
        try {
            root = JSON.readTree(Files.readString(file));
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException(file + " is not JSON: " + e.getOriginalMessage(), e);
        }
        try {
            List<String> rows = new ArrayList<>();
            required(root, "rows").forEach(r -> rows.add(r.asText()));
            List<Holding> holdings = new ArrayList<>();
            for (JsonNode h : required(root, "holdings")) {
                numbers(h, 5, "holding");
                holdings.add(new Holding(h.get(0).asInt(), h.get(1).asLong(), h.get(2).asLong(), h.get(3).asLong(),
                        h.get(4).asInt() == 1));
            }
            List<Window> faults = new ArrayList<>();
            for (JsonNode w : required(root, "faults")) {
                faults.add(new Window(Fault.valueOf(required(w, "fault").asText()), required(w, "fromMillis").asLong(),
                        required(w, "toMillis").asLong()));
            }
            List<StaleWrite> writes = new ArrayList<>();
            for (JsonNode w : required(root, "staleWrites")) {
                numbers(w, 4, "stale write");
                writes.add(new StaleWrite(w.get(0).asInt(), w.get(1).asLong(), w.get(2).asLong(), w.get(3).asInt() == 1));
            }
            return new Timeline(required(root, "deployment").asText(), required(root, "lockName").asText(),
                    required(root, "locks").asInt(), required(root, "durationMillis").asLong(), rows, holdings, faults,
                    writes);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(file + " is not a safety run's timeline: " + e.getMessage(), e);
        }
    }

    private static void numbers(JsonNode entry, int size, String what) {
        if (!entry.isArray() || entry.size() != size) {
            throw new IllegalArgumentException("a " + what + " is not " + size + " numbers: " + entry);
        }
        entry.forEach(n -> {
            if (!n.isNumber()) {
                throw new IllegalArgumentException("a " + what + " is not " + size + " numbers: " + entry);
            }
        });
    }

    private static JsonNode required(JsonNode root, String field) {
        JsonNode value = root == null ? null : root.get(field);
        if (value == null || value.isNull()) {
            throw new IllegalArgumentException("no \"" + field + "\"");
        }
        return value;
    }
}
