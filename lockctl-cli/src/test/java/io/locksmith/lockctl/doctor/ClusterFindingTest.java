package io.locksmith.lockctl.doctor;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.BitSet;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** How doctor reads {@code CLUSTER NODES} and judges a cluster from it, without servers. */
class ClusterFindingTest {

    private static final String NODES = String.join("\n",
            "a1 10.0.0.1:7000@17000 myself,master - 0 0 1 connected 0-5460 [42->-b2] [99-<-c3]",
            "b2 10.0.0.2:7001@17001,redis-b.example master - 0 1 2 connected 5461-10922",
            "c3 10.0.0.3:7002@17002 master,fail - 0 1 3 disconnected 10923-16383",
            "d4 10.0.0.4:7003@17003 slave a1 0 1 1 connected",
            "e5 10.0.0.5:7004@17004 slave,fail? b2 0 1 2 connected",
            "f6 :0@0 master,noaddr - 0 1 0 disconnected",
            "");

    @Test
    void parsesAddressesFlagsPrimariesSlotsAndMigrations() {
        List<ClusterDoctor.Node> nodes = ClusterDoctor.parseNodes(NODES);

        assertEquals(6, nodes.size());
        ClusterDoctor.Node first = nodes.get(0);
        assertEquals("10.0.0.1:7000", first.address().toString());
        assertTrue(first.myself() && first.primary());
        assertEquals(5461, first.slots().cardinality());
        assertEquals(List.of("42->-b2", "99-<-c3"), first.migrations());
        assertEquals("10.0.0.2", nodes.get(1).address().getHost());
        assertTrue(nodes.get(2).failed());
        assertEquals("a1", nodes.get(3).primaryId());
        assertNull(nodes.get(0).primaryId());
        assertTrue(nodes.get(4).failed(), "fail? (suspected) is not counted as a healthy replica");
        assertTrue(nodes.get(5).addressless());
    }

    @Test
    void coverageNamesTheSlotsOfAFailedPrimary() {
        Finding finding = ClusterDoctor.coverageFinding(ClusterDoctor.parseNodes(NODES));

        assertEquals(Verdict.FAIL, finding.verdict());
        assertTrue(finding.detail().startsWith("5461 of 16384 slots served by no live primary (10923-16383)"),
                finding.detail());
    }

    @Test
    void unassignedSlotsAreUncoveredToo() {
        Finding finding = ClusterDoctor.coverageFinding(ClusterDoctor.parseNodes(
                "a1 10.0.0.1:7000@17000 myself,master - 0 0 1 connected 0-100 200-16383"));

        assertEquals(Verdict.FAIL, finding.verdict());
        assertTrue(finding.detail().contains("(101-199)"), finding.detail());
    }

    @Test
    void replicasAgainstWaitReplicas() {
        List<ClusterDoctor.Node> nodes = ClusterDoctor.parseNodes(NODES);
        ClusterDoctor.Node a = nodes.get(0);
        ClusterDoctor.Node b = nodes.get(1);
        List<ClusterDoctor.Node> replicasOfA = List.of(nodes.get(3));
        List<ClusterDoctor.Node> replicasOfB = List.of(nodes.get(4));

        assertEquals(Verdict.WARN, ClusterDoctor.replicasFinding(a, replicasOfA, 1).verdict());
        assertTrue(ClusterDoctor.replicasFinding(a, replicasOfA, 1).detail().contains("after a failover the promoted"
                + " replica has no replica to acknowledge grants until another returns"));
        assertEquals(Verdict.FAIL, ClusterDoctor.replicasFinding(b, replicasOfB, 1).verdict(),
                "a suspected replica does not acknowledge");
        assertEquals(Verdict.FAIL, ClusterDoctor.replicasFinding(a, List.of(), 1).verdict());
        assertEquals(Verdict.FAIL, ClusterDoctor.replicasFinding(a, replicasOfA, 2).verdict());
        assertEquals(Verdict.WARN, ClusterDoctor.replicasFinding(a, replicasOfA, 0).verdict());
        ClusterDoctor.Node second = ClusterDoctor.parseNodes("g7 10.0.0.7:7006@17006 slave a1 0 1 1 connected").get(0);
        assertEquals(Verdict.OK, ClusterDoctor.replicasFinding(a, List.of(nodes.get(3), second), 1).verdict());
    }

    @Test
    void nodeTimeoutAgainstTheLease() {
        Duration lease = Duration.ofSeconds(10);

        assertEquals(Verdict.OK, ClusterDoctor.nodeTimeoutFinding(5_000, "", 1, lease).verdict());
        Finding slow = ClusterDoctor.nodeTimeoutFinding(9_500, "", 1, lease);
        assertEquals(Verdict.WARN, slow.verdict(), "9.5 s plus the election is longer than the lease");
        assertTrue(slow.detail().contains("a failover can take longer than the lease"), slow.detail());
        assertTrue(ClusterDoctor.nodeTimeoutFinding(15_000, "", 0, lease).detail().contains("grants them at once"));
    }

    @Test
    void rangesAreShortened() {
        BitSet slots = new BitSet();
        for (int i = 0; i < 20; i++) {
            slots.set(i * 10);
        }
        slots.set(500, 600);

        assertEquals("0, 10, 20, 30, 40, 50, 60, 70 and 13 more range(s)", ClusterDoctor.ranges(slots));
        BitSet two = new BitSet();
        two.set(0, 5461);
        two.set(16383);
        assertEquals("0-5460, 16383", ClusterDoctor.ranges(two));
    }
}
