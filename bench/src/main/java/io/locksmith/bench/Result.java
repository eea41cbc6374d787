package io.locksmith.bench;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One measured cell: a scenario run by one subject on one store, with its named figures (latencies in
 * microseconds, rates per second), or the reason it could not run.
 */
record Result(Scenario scenario, Store store, String subject, boolean locksmith, boolean baseline,
              String comparedTo, Map<String, Double> metrics, String failure) {

    static Result measured(Scenario scenario, Subjects.Entry entry, Map<String, Double> metrics) {
        Subject subject = entry.subject();
        return new Result(scenario, subject.store(), subject.label(), subject.isLocksmith(), entry.baseline(),
                entry.comparedTo(), Collections.unmodifiableMap(new LinkedHashMap<>(metrics)), null);
    }

    static Result failed(Scenario scenario, Subjects.Entry entry, String failure) {
        Subject subject = entry.subject();
        return new Result(scenario, subject.store(), subject.label(), subject.isLocksmith(), entry.baseline(),
                entry.comparedTo(), Map.of(), failure);
    }

    /** A round trip of the store ({@link RoundTrips#READ} or {@link RoundTrips#WRITE}), measured on its raw client. */
    static Result roundTrip(Store store, String kind, Map<String, Double> metrics) {
        return new Result(Scenario.ROUND_TRIP, store, kind, false, true, null,
                Collections.unmodifiableMap(new LinkedHashMap<>(metrics)), null);
    }

    boolean ok() {
        return failure == null;
    }

    double metric(String name) {
        Double value = metrics.get(name);
        if (value == null) {
            throw new IllegalArgumentException(subject + " in " + scenario + " has no metric " + name);
        }
        return value;
    }
}
