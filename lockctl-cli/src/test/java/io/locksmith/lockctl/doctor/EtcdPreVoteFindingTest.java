package io.locksmith.lockctl.doctor;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** How doctor reads a member's pre-vote setting from its /version and /debug/vars answers. */
class EtcdPreVoteFindingTest {

    private static final String V34 = "{\"etcdserver\":\"3.4.23\",\"etcdcluster\":\"3.4.0\"}";
    private static final String V35 = "{\"etcdserver\":\"3.5.9\",\"etcdcluster\":\"3.5.0\"}";

    private static String vars(String... args) {
        return "{\n\"cmdline\": [\"etcd\"" + (args.length == 0 ? "" : ", \"" + String.join("\", \"", args) + "\"")
                + "],\n\"memstats\": {\"Alloc\": 1}\n}";
    }

    @Test
    void onWhenTheCommandLineSaysSo() {
        assertEquals(Verdict.OK, EtcdDoctor.preVoteFinding("c", V34, vars("--name", "m1", "--pre-vote=true")).verdict());
        assertEquals(Verdict.OK, EtcdDoctor.preVoteFinding("c", V34, vars("-pre-vote")).verdict());
    }

    @Test
    void offByDefaultBeforeThreeFive() {
        Finding finding = EtcdDoctor.preVoteFinding("c", V34, vars("--name", "m1"));
        assertEquals(Verdict.WARN, finding.verdict());
        assertTrue(finding.fix().contains("--pre-vote=true"), finding.toString());
        assertTrue(EtcdDoctor.preVoteFinding("c", V34, vars("--config-file", "/etc/etcd.yml")).detail()
                .contains("config-file"));
    }

    @Test
    void onByDefaultFromThreeFiveUnlessSwitchedOff() {
        assertEquals(Verdict.OK, EtcdDoctor.preVoteFinding("c", V35, vars("--name", "m1")).verdict());
        assertEquals(Verdict.WARN, EtcdDoctor.preVoteFinding("c", V35, vars("--pre-vote=false")).verdict());
    }

    @Test
    void noCommandLineIsAWarningNotAGuess() {
        assertEquals(Verdict.WARN, EtcdDoctor.preVoteFinding("c", V34, "{}").verdict());
    }
}
