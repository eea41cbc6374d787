package io.locksmith.safety;

/**
 * One fault a safety run injected and what followed.
 *
 * @param fault          which fault
 * @param atMillis       when it started, in milliseconds since the run began
 * @param durationMillis how long the fault lasted (a pause, a partition, a dead node)
 * @param outcome        what was seen, in words: who got the lock after how long, what the stale holder did
 * @param violation      whether this fault led to a stale write accepted or a holder not told of its loss
 */
public record FaultRecord(Fault fault, long atMillis, long durationMillis, String outcome, boolean violation) {
}
