package io.locksmith.spring;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Runs the annotated method only on the instance that leads the named election of the auto-configured
 * {@link io.locksmith.LockClient}; on every other instance the call is skipped. Meant for scheduled work that one
 * instance of a fleet must do:
 * <pre>{@code
 * @Scheduled(cron = "0 0 2 * * *")
 * @LeaderOnly("nightly-billing")
 * public void bill() {
 *     long term = LockContext.currentFencingToken();   // hand it to what the job writes
 *     ...
 * }
 * }</pre>
 *
 * <h2>Candidates and terms</h2>
 * Every instance with such a method is a candidate of the election ({@link io.locksmith.LockClient#election}): it
 * joins when the application starts (or at its first call, for a bean created later) and leaves when the
 * application stops, handing the leadership to another instance at once. A call runs if this instance is leader
 * when it starts, with the term's lease as {@link LockContext#currentLease()} and the term's number as
 * {@link LockContext#currentFencingToken()} (strictly increasing per name where the store fences). Unlike a
 * {@code @Locked} job, the leader keeps its term between calls: every run of a job happens on one instance until
 * that instance stops or loses its term, so there is no race for each tick and no run of a tick on two instances.
 *
 * <h2>When leadership ends during a run</h2>
 * A term ends locally before the store would let another candidate in (the election's safety rule). The running
 * call's thread is then interrupted: a job that checks {@link Thread#isInterrupted()} between steps, or blocks in
 * interruptible calls, stops; one that does not goes on and must rely on the term's token at the resource it
 * writes. The interrupt is cleared when the call returns, so the scheduler's thread is not left interrupted.
 *
 * <h2>Skipped calls</h2>
 * A skipped call returns {@code null}, or an empty {@code Optional} for {@code Optional} methods; it is logged at
 * DEBUG. Methods returning a primitive other than {@code void}, or an asynchronous result ({@code CompletionStage},
 * {@code Future}, a Reactive Streams {@code Publisher}), fail the startup, naming the method.
 *
 * <h2>Rules</h2>
 * As {@link Locked}: on public methods of beans, called through the Spring proxy (a scheduled method is). Not on a
 * method that is also {@code @Locked}. The election's lease options are the client's ({@code locksmith.lease}).
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface LeaderOnly {

    /**
     * The election's name: every instance that must share the work gives the same. Literal text, with property
     * placeholders allowed: {@code "${app.name}-billing"}.
     */
    String value();
}
