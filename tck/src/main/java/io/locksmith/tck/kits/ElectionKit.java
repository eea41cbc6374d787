package io.locksmith.tck.kits;

import io.locksmith.Capability;
import io.locksmith.LeaderElection;
import io.locksmith.Lease;
import io.locksmith.LockClient;
import io.locksmith.LockInfo;
import io.locksmith.LockOptions;
import io.locksmith.tck.TckRule;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The rules of leader election (docs/SPEC.md R13): one leader among the candidates, named by the store with its term;
 * leaving hands over to a later term; a term the store drops ends for its leader; terms increase; observers see the
 * leaders in term order, and "no leader".
 */
public interface ElectionKit extends RuleKit {

    /** A candidate's options: the kit's short lease, renewed (a term lasts while the candidate lives). */
    private static LockOptions termOptions(KitContext kit) {
        return LockOptions.builder().leaseTime(kit.timing().shortLease().multipliedBy(2)).renewing().unboundedHold()
                .build();
    }

    private static List<LeaderElection> candidates(KitContext kit, String name, int count) {
        List<LeaderElection> candidates = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            LeaderElection election = kit.client().election(name, termOptions(kit));
            candidates.add(election);
        }
        return candidates;
    }

    private static LeaderElection awaitOneLeader(KitContext kit, List<LeaderElection> candidates, String name) {
        kit.within(kit.timing().slack(), "a leader of election '" + name + "'")
                .until(() -> candidates.stream().anyMatch(LeaderElection::isLeader));
        List<LeaderElection> leaders = candidates.stream().filter(LeaderElection::isLeader).toList();
        assertEquals(1, leaders.size(), leaders.size() + " candidates of election '" + name + "' believe they lead");
        return leaders.get(0);
    }

    @Test
    default void required_r13_1_oneLeaderNamedByTheStore() {
        KitContext kit = kitContext();
        String name = kit.name();
        List<LeaderElection> candidates = candidates(kit, name, 3);
        try {
            candidates.forEach(LeaderElection::join);
            LeaderElection leader = awaitOneLeader(kit, candidates, name);
            long term = leader.term().orElseThrow();
            Optional<LockInfo> seen = candidates.get(0).leader(kit.timing().slack());
            assertTrue(seen.isPresent(), "the store shows no leader of '" + name + "' while a candidate leads");
            assertEquals(term, seen.get().fencingToken(), "the store shows another term of '" + name + "' than its leader's");
            kit.waitFor(kit.timing().shortLease().multipliedBy(3)); // several renewals of the term
            assertEquals(List.of(leader), candidates.stream().filter(LeaderElection::isLeader).toList(),
                    "leadership of '" + name + "' changed or doubled while its leader lived");
            assertEquals(term, leader.term().orElseThrow(), "the leader's term changed while it lived");
        } finally {
            candidates.forEach(LeaderElection::close);
        }
    }

    @Test
    default void required_r13_2_leavingHandsOverToALaterTerm() {
        KitContext kit = kitContext();
        String name = kit.name();
        List<LeaderElection> candidates = candidates(kit, name, 3);
        AtomicInteger revoked = new AtomicInteger();
        List<Long> elected = new java.util.concurrent.CopyOnWriteArrayList<>();
        candidates.forEach(candidate -> candidate.onElected(term -> elected.add(term.fencingToken()))
                .onRevoked(term -> revoked.incrementAndGet()));
        try {
            candidates.forEach(LeaderElection::join);
            LeaderElection first = awaitOneLeader(kit, candidates, name);
            long firstTerm = first.term().orElseThrow();
            first.leave();
            assertFalse(first.isLeader(), "a candidate that left election '" + name + "' still leads");
            assertEquals(1, revoked.get(), "leaving did not end the leader's term for its revoked listeners");
            List<LeaderElection> rest = candidates.stream().filter(c -> c != first).toList();
            LeaderElection second = awaitOneLeader(kit, rest, name);
            assertFalse(first.isLeader());
            if (KitContext.hasCapability(kit.client(), Capability.FENCING)) {
                assertTrue(second.term().orElseThrow() > firstTerm, "the next term of '" + name + "' ("
                        + second.term().orElseThrow() + ") is not greater than the one before it (" + firstTerm + ")");
            }
            assertEquals(2, elected.size(), "elected listeners ran " + elected.size() + " times for two terms: " + elected);
        } finally {
            candidates.forEach(LeaderElection::close);
        }
    }

    @Test
    default void required_r13_3_aTermTheStoreDropsEndsForItsLeader() {
        KitContext kit = kitContext();
        kit.requireExpiryHook(TckRule.R13_3);
        String name = kit.name();
        List<LeaderElection> candidates = candidates(kit, name, 2);
        List<Lease> revokedTerms = new java.util.concurrent.CopyOnWriteArrayList<>();
        candidates.forEach(candidate -> candidate.onRevoked(revokedTerms::add));
        try {
            candidates.forEach(LeaderElection::join);
            LeaderElection leader = awaitOneLeader(kit, candidates, name);
            long term = leader.term().orElseThrow();
            kit.expireBehindClientsBack(name + "#leader");
            kit.within(kit.timing().shortLease().multipliedBy(2).plus(kit.timing().slack()),
                    "the leader of '" + name + "' to learn that its term " + term + " was dropped")
                    .until(() -> revokedTerms.stream().anyMatch(t -> t.fencingToken() == term));
            kit.within(kit.timing().slack(), "a new term of '" + name + "'").until(() -> candidates.stream()
                    .anyMatch(c -> c.term().isPresent() && c.term().getAsLong() != term));
            awaitOneLeader(kit, candidates, name);
        } finally {
            candidates.forEach(LeaderElection::close);
        }
    }

    @Test
    default void optional_r13_4_termsStrictlyIncrease() {
        KitContext kit = kitContext();
        LockClient client = kit.client();
        KitContext.requireCapability(client, TckRule.R13_4);
        String name = kit.name();
        LeaderElection election = client.election(name, termOptions(kit));
        List<Long> terms = new java.util.concurrent.CopyOnWriteArrayList<>();
        election.onElected(term -> terms.add(term.fencingToken()));
        try {
            election.join();
            for (int i = 0; i < 3; i++) {
                Lease term = election.awaitLeadership(kit.timing().slack());
                assertTrue(term.isHeld());
                term.close(); // ends the term; the candidate campaigns again
            }
            election.awaitLeadership(kit.timing().slack());
            assertTrue(terms.size() >= 4, "only " + terms.size() + " terms of '" + name + "' were elected: " + terms);
            for (int i = 1; i < terms.size(); i++) {
                assertTrue(terms.get(i) > terms.get(i - 1), "terms of '" + name + "' did not strictly increase: " + terms);
            }
        } finally {
            election.close();
        }
    }

    @Test
    default void required_r13_5_observersSeeEveryLeaderInTermOrderAndNoLeader() throws Exception {
        KitContext kit = kitContext();
        String name = kit.name();
        LeaderElection watching = kit.client().election(name, termOptions(kit));
        List<Optional<LockInfo>> seen = new java.util.concurrent.CopyOnWriteArrayList<>();
        AutoCloseable watch = watching.observe(Duration.ofMillis(20), seen::add);
        LeaderElection first = kit.client().election(name, termOptions(kit));
        LeaderElection second = kit.client().election(name, termOptions(kit));
        try {
            kit.within(kit.timing().slack(), "the observer's first report of '" + name + "'").until(() -> !seen.isEmpty());
            assertEquals(Optional.empty(), seen.get(0), "the observer saw a leader of '" + name + "' before any joined");
            first.join();
            long firstTerm = first.awaitLeadership(kit.timing().slack()).fencingToken();
            kit.within(kit.timing().slack(), "the observer to see the first leader of '" + name + "'").until(() ->
                    seen.stream().anyMatch(s -> s.isPresent() && s.get().fencingToken() == firstTerm));
            first.leave();
            kit.within(kit.timing().slack(), "the observer to see that '" + name + "' has no leader").until(() ->
                    seen.get(seen.size() - 1).isEmpty());
            second.join();
            long secondTerm = second.awaitLeadership(kit.timing().slack()).fencingToken();
            kit.within(kit.timing().slack(), "the observer to see the second leader of '" + name + "'").until(() ->
                    seen.stream().anyMatch(s -> s.isPresent() && s.get().fencingToken() == secondTerm));
            List<Optional<LockInfo>> reports = List.copyOf(seen);
            long last = Long.MIN_VALUE;
            for (Optional<LockInfo> report : reports) {
                if (report.isPresent()) {
                    assertTrue(report.get().fencingToken() >= last, "the observer of '" + name + "' saw terms out of"
                            + " order: " + reports);
                    last = report.get().fencingToken();
                }
            }
        } finally {
            watch.close();
            first.close();
            second.close();
            watching.close();
        }
    }
}
