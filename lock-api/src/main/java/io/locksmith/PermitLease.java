package io.locksmith;

/**
 * Permits of a {@link DistributedSemaphore} held together: returned by {@link DistributedSemaphore#acquire}. Closing
 * it releases them all. As a {@link Lease}, it is renewed while held, expires by the store's clock otherwise, and is
 * lost (all its permits, {@link #onLost} called once) as soon as any one of its permits is lost.
 *
 * <p>A permit lease belongs to its holding, never to a thread: no thread re-enters it ({@link #holdCount()} is 1,
 * {@link #handOff()} changes nothing), and it may be used and closed from any thread.
 */
public interface PermitLease extends Lease {

    /** The semaphore's name (also {@link #lockName()}). */
    String semaphoreName();

    /**
     * The id of this holding, unique across clients, for {@link DistributedSemaphore#release(String)} and logs.
     */
    String id();

    /** How many permits this lease holds. */
    int permits();

    /**
     * The fencing token of this holding: strictly greater than that of every earlier permit lease of the semaphore
     * (on stores that declare {@link Capability#FENCING}), so a resource that admits a bounded number of writers
     * can reject one whose permit ran out before a later one was granted.
     */
    @Override
    long fencingToken();
}
