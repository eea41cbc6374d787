package io.locksmith.lockctl.doctor;

import io.locksmith.lockctl.doctor.PostgresDoctor.Standby;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * How doctor judges a PostgreSQL primary's standbys from {@code pg_stat_replication}, {@code synchronous_standby_names}
 * and {@code synchronous_commit}: the cases DoctorTest's real standby does not reach.
 */
class PostgresReplicationFindingTest {

    private static final Standby ASYNC = new Standby("s1", "streaming", "async");
    private static final Standby SYNC = new Standby("s2", "streaming", "sync");
    private static final Standby QUORUM = new Standby("s3", "streaming", "quorum");
    private static final Standby POTENTIAL = new Standby("s4", "streaming", "potential");

    @Test
    void noStandbyIsASinglePrimary() {
        Finding finding = PostgresDoctor.replicationFinding(List.of(), "", "on");
        assertEquals(Verdict.OK, finding.verdict());
        assertTrue(finding.detail().startsWith("no streaming standby: a single primary, so a failover is a restore"));
    }

    @Test
    void standbysThatAreNotSynchronousWarn() {
        Finding finding = PostgresDoctor.replicationFinding(List.of(ASYNC, POTENTIAL), "", "on");
        assertEquals(Verdict.WARN, finding.verdict());
        assertTrue(finding.detail().contains("all asynchronous (s1 streaming/async, s4 streaming/potential)"),
                finding.detail());
        assertTrue(finding.fix().contains("synchronous_commit=remote_apply"), finding.fix());
    }

    @Test
    void synchronousStandbyWithCommitsThatWaitIsOk() {
        assertEquals(Verdict.OK, PostgresDoctor.replicationFinding(List.of(SYNC), "*", "on").verdict());
        assertEquals(Verdict.OK, PostgresDoctor.replicationFinding(List.of(QUORUM, ASYNC), "ANY 1 (s3, s1)",
                "remote_apply").verdict());
        assertTrue(PostgresDoctor.replicationFinding(List.of(SYNC, ASYNC), "s2", "on").detail()
                .contains("promote only a synchronous one"));
    }

    @Test
    void synchronousStandbyButCommitsThatDoNotWaitForItWarn() {
        for (String level : List.of("local", "off")) {
            Finding finding = PostgresDoctor.replicationFinding(List.of(SYNC), "*", level);
            assertEquals(Verdict.WARN, finding.verdict(), level);
            assertTrue(finding.detail().contains("commits do not wait for the synchronous standby"), finding.detail());
        }
        Finding remoteWrite = PostgresDoctor.replicationFinding(List.of(SYNC), "*", "remote_write");
        assertEquals(Verdict.WARN, remoteWrite.verdict());
        assertTrue(remoteWrite.detail().contains("written its WAL but not flushed it"), remoteWrite.detail());
    }

    @Test
    void aNamedSynchronousStandbyThatIsNotThereHangsEveryCommit() {
        Finding none = PostgresDoctor.replicationFinding(List.of(), "s9", "on");
        assertEquals(Verdict.FAIL, none.verdict());
        assertTrue(none.detail().startsWith("no standby connected, synchronous_standby_names='s9'"), none.detail());
        assertEquals(Verdict.FAIL, PostgresDoctor.replicationFinding(List.of(ASYNC), "s9", "remote_apply").verdict());
        assertEquals(Verdict.WARN, PostgresDoctor.replicationFinding(List.of(ASYNC), "s9", "local").verdict(),
                "commits at local do not wait, so they do not hang");
    }

    @Test
    void hiddenSyncStateCannotBeJudged() {
        Finding finding = PostgresDoctor.replicationFinding(List.of(new Standby("s1", null, null)), "", "on");
        assertEquals(Verdict.WARN, finding.verdict());
        assertTrue(finding.fix().contains("pg_monitor"));
    }
}
