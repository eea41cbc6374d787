package io.locksmith.spring;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Runs the annotated method while holding a distributed lock of the auto-configured
 * {@link io.locksmith.LockClient}:
 * <pre>{@code
 * @Locked(name = "'order:' + #orderId", waitTime = "3s", leaseTime = "10s")
 * public void ship(long orderId) {
 *     long token = LockContext.currentFencingToken();   // hand it to the resource
 *     ...
 * }
 * }</pre>
 *
 * <h2>Acquire and release</h2>
 * The lock is acquired before the method runs, waiting at most {@link #waitTime()}, and released when it returns
 * or throws; for a method whose work goes on after it returns, when that work ends (see "Asynchronous methods"). If it is not obtained (busy for the whole wait, or a store error) the method does not run, and the
 * failure strategy decides the outcome: by default a {@link io.locksmith.LockTimeoutException} or
 * {@link io.locksmith.LockStoreException} naming the lock is thrown; with {@link OnFailure#SKIP} the call returns
 * {@code null} (an empty {@code Optional} for {@code Optional} methods); a {@link LockFailureHandler} bean may
 * decide instead ({@link #failureHandler()}). Re-entry from the same thread (a {@code @Locked} method calling
 * another with the same name) of a mutex is counted locally and shares the fencing token.
 *
 * <h2>Asynchronous methods</h2>
 * A method returning {@code CompletableFuture} or {@code CompletionStage}, {@code Mono} or {@code Flux}, and a Kotlin
 * suspend function, holds the lock until its asynchronous result ends: the stage completes, the {@code Mono} or
 * {@code Flux} completes, fails or is cancelled, the suspend function returns, throws or is cancelled. The lock is
 * acquired without blocking a thread ({@link io.locksmith.DistributedLock#acquireAsync}), and the method runs only once
 * it is granted: a {@code Mono} or {@code Flux} method when its result is subscribed, a {@code CompletionStage} method
 * on the application's task executor ({@code applicationTaskExecutor}) unless the lock was free at once. A lock not
 * obtained arrives through the result (an error signal, a failed future) under the failure strategy. {@code Mono},
 * {@code Flux} and suspend functions need {@code io.locksmith:locksmith-reactor} on the class path (suspend functions
 * also {@code kotlinx-coroutines-reactor} and {@code kotlin-reflect}, as Spring AOP does); every other asynchronous
 * return type ({@code Future}, {@code ParallelFlux}, any other {@code Publisher}, RxJava, Kotlin {@code Flow} or
 * {@code Deferred} from a plain function) is refused at startup, wherever it sits in the type's hierarchy. Leases of
 * asynchronous methods are never re-entered: a nested {@code @Locked} call with the same name waits for them.
 *
 * <h2>On a type</h2>
 * On a class, the annotation guards every public method the class declares (not those of {@code Object}); an
 * annotation on a method replaces the class's for that method. Every {@code #parameter} of the name must exist
 * in every such method.
 *
 * <h2>Read, write and permits</h2>
 * By default the name is a mutex. {@link #mode()} {@link Mode#READ} or {@link Mode#WRITE} takes the read or the
 * write lock of the read-write lock of that name ({@link io.locksmith.LockClient#readWriteLock}, admitting
 * {@link #maxReaders()} readers): many readers share it, a writer is alone, a waiting writer keeps new readers out.
 * {@link #semaphore()} {@code = N} takes {@link #permits()} permits (1 by default) of the semaphore of N permits of
 * that name ({@link io.locksmith.LockClient#semaphore}): at most N permits are held at once across every instance;
 * every user of a name must give the same N (and the same {@code maxReaders}). These leases are never re-entered:
 * a nested call that would wait for its own thread's lease (a write under a read or a write, more permits than are
 * left) fails at once with {@link IllegalStateException}; a read under a read takes a second read lease. Read,
 * write and permit leases draw their fencing tokens from one increasing sequence per name (SPEC R12.6, R11.6): a
 * resource can reject a writer whose lease ran out before a later reader or writer came in.
 * <pre>{@code
 * @Locked(name = "'catalog'", mode = Locked.Mode.READ)    public Price price(String sku) { ... }
 * @Locked(name = "'catalog'", mode = Locked.Mode.WRITE)   public void reprice(...) { ... }
 * @Locked(name = "'exports'", semaphore = 4)              public void export(...) { ... } // 4 at once
 * }</pre>
 *
 * <h2>Inside the method</h2>
 * {@link LockContext#currentLease()} and {@link LockContext#currentFencingToken()} give the lease of the
 * innermost {@code @Locked} method running on this thread. Pass the token to the resource you write, and call
 * {@code LockContext.currentLease().ensureHeld()} before an irreversible step.
 *
 * <h2>Rules</h2>
 * The annotation works through a Spring proxy: on public (or protected) methods of beans, called from another
 * bean (a call through {@code this} bypasses the proxy, as with {@code @Transactional}). Bad durations, unparsable
 * names and
 * unsupported return types fail when the application starts, naming the method, and so does a name that refers to
 * a {@code #variable} that is not a parameter of the method, or reads a property or calls a method that the
 * parameter's declared type does not have ({@code #order.skuu}; not checked where only the runtime value can tell:
 * {@code Object}, an interface, a type variable). A part of the name that is null in a call
 * ({@code #order.customer} of {@code #order.customer.id}) fails that call with a
 * {@link io.locksmith.LockConfigurationException} naming it. By default the lock advisor
 * runs outside {@code @Transactional}, so a transaction commits before its lock is released.
 */
@Target({ElementType.METHOD, ElementType.TYPE})
@Retention(RetentionPolicy.RUNTIME)
@Inherited
@Documented
public @interface Locked {

    /**
     * The lock name, a SpEL expression: {@code "'order:' + #orderId"}. Method parameters are variables by name
     * (compile with {@code -parameters}) and as {@code #p0}/{@code #a0}; {@code #root.method},
     * {@code #root.args} and {@code #root.target} are available, and beans as {@code @beanName}. Literal text
     * must be quoted: {@code "'nightly-report'"}. The value must not be null or blank.
     */
    String name();

    /**
     * How long to wait for the lock (named {@code waitTime} because an annotation cannot declare {@code wait()}): {@code "3s"}, {@code "500ms"}, {@code "PT2M"}, {@code "0s"} for one attempt
     * without waiting. Empty means {@code locksmith.annotation.default-wait} (3s unless configured). The duration
     * attributes may be property placeholders: {@code "${orders.lock-wait:3s}"}.
     */
    String waitTime() default "";

    /** The lease time, e.g. {@code "10s"}; empty means the client's default ({@code locksmith.lease}). */
    String leaseTime() default "";

    /** The maximum hold, e.g. {@code "2m"}; empty means the client's default ({@code locksmith.max-hold}). */
    String maxHold() default "";

    /**
     * How long the lock stays held at least, counted from when it was acquired, e.g. {@code "30s"}: a call that
     * returns (or throws) sooner leaves the lock held until then ({@link io.locksmith.Lease#closeAfter}), so a
     * scheduled job that finished early is not run again by another instance within that time (ShedLock's
     * {@code lockAtLeastFor}). On a store with a TTL (Redis, PostgreSQL) the store keeps the lock even if this process
     * ends; on ZooKeeper and etcd this client releases it then, and a process that ends sooner frees it with its
     * session. Empty or {@code "0s"} means none. Not longer than {@link #maxHold()}, nor than {@link #leaseTime()} of a
     * {@link Renewal#FIXED} lease. Only on a mutex ({@link Mode#EXCLUSIVE} without {@link #semaphore()}) and on a
     * method that does not return an asynchronous result; anything else fails the startup.
     */
    String minHold() default "";

    /** Whether the lease is renewed while the method runs; {@link Renewal#DEFAULT} keeps the client's default. */
    Renewal renewal() default Renewal.DEFAULT;

    /**
     * What the call does when the lock is not obtained: it stayed busy for the whole {@link #waitTime()}
     * ({@link io.locksmith.LockTimeoutException}) or the store failed ({@link io.locksmith.LockStoreException}).
     * {@link OnFailure#DEFAULT} follows {@code locksmith.annotation.on-failure} (or
     * {@code locksmith.annotation.failure-handler}), which default to {@link OnFailure#THROW}.
     */
    OnFailure onFailure() default OnFailure.DEFAULT;

    /**
     * The name of a {@link LockFailureHandler} bean that decides the outcome of a call whose lock was not obtained;
     * empty for none. Not together with {@link #onFailure()} {@code THROW} or {@code SKIP}.
     */
    String failureHandler() default "";

    /**
     * What the name locks: a mutex ({@link Mode#EXCLUSIVE}, the default), or the read or write lock of a read-write
     * lock. Not together with {@link #semaphore()}.
     */
    Mode mode() default Mode.EXCLUSIVE;

    /**
     * How many readers the read-write lock of a {@link Mode#READ} or {@link Mode#WRITE} method admits at once, 1 to
     * 256; the same for every user of the name. Only with those modes.
     */
    int maxReaders() default io.locksmith.DistributedReadWriteLock.DEFAULT_MAX_READERS;

    /**
     * The size of the semaphore to take {@link #permits()} permits of, 1 to 256; 0 (the default) for none. The same
     * for every user of the name.
     */
    int semaphore() default 0;

    /** How many permits of the {@link #semaphore()} one call takes, all or none: 1 to its size. Only with it. */
    int permits() default 1;

    /** What a {@code @Locked} method's name locks. */
    enum Mode {
        /** A mutex: one holder at a time, re-entrant on its thread. */
        EXCLUSIVE,
        /** The read lock of a read-write lock: shared with other readers, never with a writer. */
        READ,
        /** The write lock of a read-write lock: alone, no reader and no other writer. */
        WRITE
    }

    /** Lease renewal while a {@code @Locked} method runs. */
    enum Renewal {
        /** The client's default ({@code locksmith.renew}, true unless configured). */
        DEFAULT,
        /** Renew the lease while the method runs, up to the maximum hold. */
        RENEWING,
        /** Never renew: the lease ends after the lease time even if the method still runs. */
        FIXED
    }

    /** The outcome of a {@code @Locked} call whose lock was not obtained (timed out or store error). */
    enum OnFailure {
        /** As configured: {@code locksmith.annotation.on-failure} or {@code locksmith.annotation.failure-handler}. */
        DEFAULT,
        /**
         * Throw the {@link io.locksmith.LockTimeoutException} or {@link io.locksmith.LockStoreException}, naming the
         * lock; the method does not run.
         */
        THROW,
        /**
         * Do not run the method and return {@code null}, or an empty {@code Optional} for {@code Optional} methods
         * (for scheduled jobs that only one instance should run). Refused on methods returning a primitive.
         */
        SKIP
    }
}
