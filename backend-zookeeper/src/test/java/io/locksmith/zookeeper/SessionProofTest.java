package io.locksmith.zookeeper;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The bookkeeping of what the leader has certainly seen, on made-up times (nanoseconds). */
class SessionProofTest {

    private static final long SESSION = 4_000_000_000L;
    private static final long DRIFT = SessionProof.driftAllowance(SESSION);
    private static final long ID = 0x42;

    @Test
    void aNewSessionIsProvenFromBeforeItWasAskedFor() {
        SessionProof proof = new SessionProof();
        proof.started(ID, 1_000, SESSION);
        assertEquals(1_000 + SESSION - DRIFT, proof.deadline(ID));
        assertEquals(Long.MIN_VALUE, proof.deadline(0x43), "another session is never proven");
    }

    @Test
    void aContactCountsOnceALaterOneAThirdOfTheSessionLaterCameBackThroughTheLeader() {
        SessionProof proof = new SessionProof();
        proof.started(ID, 0, SESSION);
        int epoch = proof.epoch();
        long first = 1_000_000_000L;
        assertFalse(proof.confirmed(ID, epoch, first, SESSION), "alone, it may not have reached the leader yet");
        assertFalse(proof.confirmed(ID, epoch, first + SESSION / 3 - 1, SESSION), "too soon after it to prove it");
        assertEquals(SESSION - DRIFT, proof.deadline(ID));
        assertTrue(proof.confirmed(ID, epoch, first + SESSION / 3, SESSION));
        assertEquals(first + SESSION - DRIFT, proof.deadline(ID));
        // The next one proves the latest contact old enough, not a newer one.
        assertTrue(proof.confirmed(ID, epoch, first + SESSION / 3 + SESSION / 3, SESSION));
        assertEquals(first + SESSION / 3 + SESSION - DRIFT, proof.deadline(ID));
    }

    @Test
    void contactsOfAnotherConnectionOrSessionAreNotCounted() {
        SessionProof proof = new SessionProof();
        proof.started(ID, 0, SESSION);
        int epoch = proof.epoch();
        proof.confirmed(ID, epoch, 1_000_000_000L, SESSION);
        proof.connectionChanged(); // reconnected, maybe to another member: what the old one passed on is unknown
        assertFalse(proof.confirmed(ID, epoch, 3_000_000_000L, SESSION), "sent on the old connection");
        assertFalse(proof.confirmed(ID, proof.epoch(), 3_000_000_000L, SESSION), "the old contact was dropped");
        assertFalse(proof.confirmed(0x43, proof.epoch(), 5_000_000_000L, SESSION), "another session");
        assertEquals(SESSION - DRIFT, proof.deadline(ID), "what was proven stays proven, nothing more");
    }

    @Test
    void aNewSessionStartsOverAndAnsweredOutOfOrderContactsStaySorted() {
        SessionProof proof = new SessionProof();
        proof.started(ID, 0, SESSION);
        int epoch = proof.epoch();
        proof.confirmed(ID, epoch, 2_000_000_000L, SESSION);
        proof.confirmed(ID, epoch, 1_000_000_000L, SESSION); // answered after a later one
        proof.confirmed(ID, epoch, 2_000_000_000L + SESSION / 3, SESSION);
        assertEquals(2_000_000_000L + SESSION - DRIFT, proof.deadline(ID));
        proof.started(0x43, 9_000_000_000L, SESSION);
        assertEquals(9_000_000_000L + SESSION - DRIFT, proof.deadline(0x43));
        assertEquals(Long.MIN_VALUE, proof.deadline(ID));
    }
}
