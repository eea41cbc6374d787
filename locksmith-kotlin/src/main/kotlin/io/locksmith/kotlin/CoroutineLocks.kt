@file:JvmName("CoroutineLocks")

package io.locksmith.kotlin

import io.locksmith.DistributedLock
import io.locksmith.Lease
import io.locksmith.LockStoreException
import io.locksmith.LockTimeoutException
import kotlinx.coroutines.NonCancellable
import kotlinx.coroutines.suspendCancellableCoroutine
import kotlinx.coroutines.withContext
import org.slf4j.LoggerFactory
import java.util.concurrent.CompletableFuture
import java.util.concurrent.CompletionException
import kotlin.coroutines.resumeWithException
import kotlin.time.Duration
import kotlin.time.toJavaDuration
import java.time.Duration as JavaDuration

// Suspending locks for Kotlin coroutines, over DistributedLock.acquireAsync: a waiting coroutine holds no thread, and
// cancelling it cancels the wait. The names differ from the blocking members (acquire, tryAcquire), which an
// extension of the same name could never shadow.

private val log = LoggerFactory.getLogger("io.locksmith.kotlin.CoroutineLocks")

/**
 * Acquires this lock, suspending the coroutine for at most [maxWait]; no thread is blocked while it waits.
 *
 * Cancelling the coroutine cancels the wait and leaves nothing behind in the store; a lease granted at the moment of
 * the cancellation is released, never lost. The caller owns the returned lease and must close it
 * ([Lease.close], [awaitClose]); [withLock] does that itself. Leases acquired this way are never re-entered (see
 * [Lease]): a second acquire of the same lock in the same coroutine waits for the first to be closed.
 *
 * @throws LockTimeoutException if the lock was not obtained within [maxWait]
 * @throws LockStoreException if the store failed
 * @throws IllegalStateException if the client is closed
 * @throws IllegalArgumentException if [maxWait] is negative
 */
public suspend fun DistributedLock.awaitAcquire(maxWait: JavaDuration): Lease =
    acquireAsync(maxWait).awaitOwned { lease -> releaseUnwanted(lease) }

/** As [awaitAcquire], with a [kotlin.time.Duration]: `lock.awaitAcquire(3.seconds)`. */
public suspend fun DistributedLock.awaitAcquire(maxWait: Duration): Lease = awaitAcquire(maxWait.toJavaDuration())

/**
 * As [awaitAcquire], but returns null if the lock was not obtained within [maxWait] instead of throwing; a zero wait
 * makes one store attempt.
 *
 * @throws LockStoreException if the store failed
 * @throws IllegalStateException if the client is closed
 * @throws IllegalArgumentException if [maxWait] is negative
 */
public suspend fun DistributedLock.awaitTryAcquire(maxWait: JavaDuration): Lease? =
    tryAcquireAsync(maxWait).awaitOwned { lease -> lease.ifPresent(::releaseUnwanted) }.orElse(null)

/** As [awaitTryAcquire], with a [kotlin.time.Duration]. */
public suspend fun DistributedLock.awaitTryAcquire(maxWait: Duration): Lease? =
    awaitTryAcquire(maxWait.toJavaDuration())

/**
 * Runs [block] holding this lock, waiting at most [maxWait] for it without blocking a thread, and releases it when
 * [block] returns, throws or is cancelled:
 * ```
 * val receipt = locks.lock("stock:$sku").withLock(3.seconds) { lease ->
 *     stock.deduct(sku, quantity, lease.fencingToken())   // may suspend; the lock stays held
 * }
 * ```
 * The release ([Lease.closeAsync]) runs in a [NonCancellable] context, so a cancelled coroutine still releases
 * before it completes. If the release fails after [block] threw, the release failure is added to that exception
 * as suppressed; after [block] returned it is logged (the lock then runs out at its lease time) rather than failing
 * finished work. The lease is never re-entered: a nested `withLock` of the same lock waits for this one, that is,
 * until its own [maxWait] runs out.
 *
 * @return what [block] returned
 * @throws LockTimeoutException if the lock was not obtained within [maxWait]; [block] did not run
 * @throws LockStoreException if the store failed before the lock was obtained; [block] did not run
 * @throws IllegalStateException if the client is closed
 * @throws IllegalArgumentException if [maxWait] is negative
 */
public suspend fun <T> DistributedLock.withLock(maxWait: JavaDuration, block: suspend (Lease) -> T): T {
    val lease = awaitAcquire(maxWait)
    val result = try {
        block(lease)
    } catch (failure: Throwable) {
        withContext(NonCancellable) {
            try {
                lease.awaitClose()
            } catch (releaseFailure: Exception) {
                failure.addSuppressed(releaseFailure)
            }
        }
        throw failure
    }
    withContext(NonCancellable) {
        try {
            lease.awaitClose()
        } catch (releaseFailure: Exception) {
            log.warn("lock '{}' could not be released after its work completed; it expires at its lease time",
                lease.lockName(), releaseFailure)
        }
    }
    return result
}

/** As [withLock], with a [kotlin.time.Duration]: `lock.withLock(3.seconds) { lease -> ... }`. */
public suspend fun <T> DistributedLock.withLock(maxWait: Duration, block: suspend (Lease) -> T): T =
    withLock(maxWait.toJavaDuration(), block)

/**
 * Releases this lease ([Lease.closeAsync]) and suspends until the store has answered. The lease is closed as soon as
 * this is called, even if the coroutine is cancelled while it waits for the answer.
 *
 * @throws LockStoreException if the store could not be reached; the lock then runs out at its lease time
 */
public suspend fun Lease.awaitClose() {
    // Never cancelled: a release future cancelled before the client's thread picks it up would skip the store request.
    closeAsync().awaitOwned(cancelWithCoroutine = false) { }
}

/**
 * Awaits this future, cancelling it if the coroutine is cancelled (unless told not to). Unlike kotlinx-coroutines'
 * `await()`, a value that arrives when the coroutine can no longer take it (cancelled just before or after the future
 * completed) goes to [unwanted] instead of being dropped: a lease must be released, not left to run until its maximum
 * hold.
 */
private suspend fun <T> CompletableFuture<T>.awaitOwned(cancelWithCoroutine: Boolean = true, unwanted: (T) -> Unit): T =
    suspendCancellableCoroutine { continuation ->
        whenComplete { value, failure ->
            if (failure == null) {
                continuation.resume(value) { _, notTaken, _ -> unwanted(notTaken) }
            } else {
                continuation.resumeWithException((failure as? CompletionException)?.cause ?: failure)
            }
        }
        if (cancelWithCoroutine) {
            continuation.invokeOnCancellation { cancel(false) }
        }
    }

private fun releaseUnwanted(lease: Lease) {
    lease.closeAsync().whenComplete { _, failure ->
        if (failure != null) {
            log.warn("lock '{}', granted to a cancelled coroutine, could not be released; it expires at its lease time",
                lease.lockName(), failure)
        }
    }
}
