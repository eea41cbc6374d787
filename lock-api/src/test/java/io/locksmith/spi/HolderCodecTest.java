package io.locksmith.spi;

import io.locksmith.HolderIdentity;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

/** The holder's storage format: what one provider writes, any other reads back; damaged values stay readable. */
class HolderCodecTest {

    @Test
    void anIdentityReadsBackAsWritten() {
        HolderIdentity holder = new HolderIdentity("client-1", "42@host", "worker-3", 17, "trace-9");

        assertEquals("v1\tclient-1\t42@host\tworker-3\t17\ttrace-9", HolderCodec.encode(holder));
        assertEquals(holder, HolderCodec.decode(HolderCodec.encode(holder)));
    }

    @Test
    void tabsAndLineBreaksInAFieldCannotSplitTheFormat() {
        HolderIdentity holder = new HolderIdentity("client\t1", "42@host", "worker\n3", 17, null);

        HolderIdentity read = HolderCodec.decode(HolderCodec.encode(holder));

        assertEquals("client 1", read.clientId());
        assertEquals("worker 3", read.thread());
        assertNull(read.traceId());
    }

    @Test
    void anUnknownValueBecomesTheClientIdSoInspectStillShowsIt() {
        assertEquals(new HolderIdentity("written by hand", "", "", -1, null), HolderCodec.decode("written by hand"));
        assertEquals("v1 c p t not-a-number ", HolderCodec.decode("v1\tc\tp\tt\tnot-a-number\t").clientId());
    }
}
