package io.locksmith.kotlin

import io.locksmith.Lease
import io.locksmith.LockClient
import io.locksmith.LockTimeoutException
import io.locksmith.tck.FencedRegister
import kotlinx.coroutines.CoroutineStart
import kotlinx.coroutines.async
import kotlinx.coroutines.asCoroutineDispatcher
import kotlinx.coroutines.awaitAll
import kotlinx.coroutines.awaitCancellation
import kotlinx.coroutines.cancelAndJoin
import kotlinx.coroutines.delay
import kotlinx.coroutines.launch
import kotlinx.coroutines.runBlocking
import kotlinx.coroutines.withContext
import kotlinx.coroutines.withTimeout
import kotlinx.coroutines.withTimeoutOrNull
import org.awaitility.Awaitility.await
import org.junit.jupiter.api.AfterEach
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertFalse
import org.junit.jupiter.api.Assertions.assertNull
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.BeforeEach
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.TestInfo
import org.junit.jupiter.api.assertThrows
import java.util.Optional
import java.util.UUID
import java.util.concurrent.Executors
import java.util.concurrent.ThreadLocalRandom
import java.util.concurrent.atomic.AtomicInteger
import kotlin.time.Duration.Companion.milliseconds
import kotlin.time.Duration.Companion.minutes
import kotlin.time.Duration.Companion.seconds
import java.time.Duration as JavaDuration

/**
 * What the suspending locks promise, on a real store: the subclasses say which. Each test takes locks of its own
 * name through two clients (the one under test, and another for competing holders), both closed after it.
 */
abstract class CoroutineLocksContract {

    private lateinit var client: LockClient
    private lateinit var other: LockClient
    private lateinit var name: String

    /** The URI of a fresh store namespace for one test. */
    abstract fun storeUri(): String

    /** How many coroutines contend for one lock in the exclusion test. */
    open val contenders: Int = 1000

    @BeforeEach
    fun openClients(test: TestInfo) {
        val uri = storeUri()
        client = LockClient.open(uri)
        other = LockClient.open(uri)
        name = "coroutines:" + test.testMethod.orElseThrow().name + ":" + UUID.randomUUID()
    }

    @AfterEach
    fun closeClients() {
        client.close()
        other.close()
    }

    /**
     * A thousand coroutines ([contenders]) on two threads take turns on one lock: each reads a fenced counter,
     * suspends, and writes what it read plus one. A waiter that blocked its thread would starve the holders of the two
     * threads and stall the run; two holdings at once would lose an update.
     */
    @Test
    fun exclusionWithManyCoroutinesOnTwoThreadsKeepsAFencedCounterExact() {
        val counter = FencedRegister()
        val lock = client.lock(name)
        val threads = Executors.newFixedThreadPool(2)
        try {
            runBlocking(threads.asCoroutineDispatcher()) {
                withTimeout(8.minutes) {
                    (1..contenders).map {
                        async {
                            // The last one waits for all the others.
                            lock.withLock(5.minutes) { lease ->
                                counter.enter(lease.fencingToken(), UUID.randomUUID().toString()).use { hold ->
                                    val read = counter.value()
                                    delay(1)
                                    hold.write(read + 1)
                                }
                            }
                        }
                    }.awaitAll()
                }
            }
        } finally {
            threads.shutdownNow()
        }
        assertEquals(contenders.toLong(), counter.value(), "updates lost: $counter")
        assertEquals(0L, counter.overlaps(), "two holdings at once: $counter")
        assertEquals(0L, counter.staleWritesRejected() + counter.staleWritesAccepted(), counter.toString())
        assertEquals(0L, counter.tokenMonotonicityViolations(), "tokens did not increase: $counter")
        assertEquals(0, client.heldCount())
        assertEquals(Optional.empty<Any>(), client.inspect(name))
    }

    /** On one thread: if waiting blocked it, the holder could never resume to release, and the waiter would time out. */
    @Test
    fun aWaitingCoroutineBlocksNoThread() {
        val lock = client.lock(name)
        val thread = Executors.newSingleThreadExecutor()
        try {
            runBlocking(thread.asCoroutineDispatcher()) {
                val holding = lock.awaitAcquire(10.seconds)
                val waiter = async { lock.withLock(10.seconds) { lease -> lease.fencingToken() } }
                assertNull(withTimeoutOrNull(100.milliseconds) { waiter.await() }, "granted while held")
                holding.awaitClose()
                assertTrue(waiter.await() > holding.fencingToken())
            }
        } finally {
            thread.shutdownNow()
        }
        assertEquals(0, client.heldCount())
    }

    @Test
    fun cancellingAWaitingCoroutineCancelsTheWaitAndLeavesNothingBehind(): Unit = runBlocking {
        val busy = other.lock(name).acquire(JavaDuration.ofSeconds(60))
        val ran = AtomicInteger()
        val waiter = launch { client.lock(name).withLock(60.seconds) { ran.incrementAndGet() } }
        val bare = async { client.lock(name).awaitAcquire(60.seconds) }
        assertNull(withTimeoutOrNull(200.milliseconds) { bare.await() }, "granted while held")
        waiter.cancelAndJoin()
        bare.cancelAndJoin()
        assertTrue(waiter.isCancelled && bare.isCancelled)
        busy.close()

        // A waiter left queued in the store would be handed the lock now, and keep it from everyone else.
        val next = await().atMost(JavaDuration.ofSeconds(30))
            .until({ other.lock(name).tryAcquire().orElse(null) }, { it != null })
        next.close()
        assertEquals(0, ran.get())
        await().atMost(JavaDuration.ofSeconds(30)).until { client.heldCount() == 0 }
        assertEquals(Optional.empty<Any>(), client.inspect(name))
    }

    /**
     * Cancels coroutines that take a free lock at random moments: before the store was asked, while it answers, just
     * as the lease is granted, inside the block. Whatever was granted is released.
     */
    @Test
    fun cancellingAtAnyMomentNeverLeavesALeaseHeld(): Unit = runBlocking {
        val lock = client.lock(name)
        repeat(100) {
            val job = launch(start = CoroutineStart.UNDISPATCHED) {
                withContext(kotlinx.coroutines.Dispatchers.Default) {
                    lock.withLock(60.seconds) { delay(1) }
                }
            }
            val spin = ThreadLocalRandom.current().nextLong(0, 3_000_000)
            val end = System.nanoTime() + spin
            while (System.nanoTime() < end) {
                Thread.onSpinWait()
            }
            job.cancelAndJoin()
        }
        // A cancelled withLock has released when it completes; a lease granted to it as it was cancelled is released
        // in the background.
        await().atMost(JavaDuration.ofSeconds(30)).until { client.heldCount() == 0 }
        assertEquals(Optional.empty<Any>(), client.inspect(name))
        other.lock(name).tryAcquire().orElseThrow().use { assertTrue(it.isHeld) }
    }

    @Test
    fun theBlockFailingOrBeingCancelledReleasesTheLock(): Unit = runBlocking {
        val lock = client.lock(name)
        val failure = assertThrows<IllegalStateException> {
            runBlocking { lock.withLock(10.seconds) { throw IllegalStateException("boom") } }
        }
        assertEquals("boom", failure.message)
        assertEquals(Optional.empty<Any>(), client.inspect(name))

        val entered = kotlinx.coroutines.CompletableDeferred<Long>()
        val holder = launch(kotlinx.coroutines.Dispatchers.Default) {
            lock.withLock(10.seconds) { lease ->
                entered.complete(lease.fencingToken())
                awaitCancellation()
            }
        }
        entered.await()
        assertTrue(client.inspect(name).isPresent)
        holder.cancelAndJoin()
        assertEquals(Optional.empty<Any>(), client.inspect(name))

        // The usual Kotlin way to bound work: a time-out cancels the block, and the lock is released.
        assertThrows<kotlinx.coroutines.TimeoutCancellationException> {
            runBlocking { withTimeout(100.milliseconds) { lock.withLock(10.seconds) { awaitCancellation() } } }
        }
        assertEquals(Optional.empty<Any>(), client.inspect(name))
        assertEquals(0, client.heldCount())
    }

    @Test
    fun aBusyLockTimesOutOrGivesNullAndTheBlockDoesNotRun(): Unit = runBlocking {
        val ran = AtomicInteger()
        other.lock(name).acquire(JavaDuration.ofSeconds(60)).use { busy ->
            val timeout = assertThrows<LockTimeoutException> {
                runBlocking { client.lock(name).withLock(100.milliseconds) { ran.incrementAndGet() } }
            }
            assertTrue(timeout.message!!.contains(name), timeout.message)
            assertNull(client.lock(name).awaitTryAcquire(JavaDuration.ZERO))
            assertNull(client.lock(name).awaitTryAcquire(50.milliseconds))
            assertTrue(busy.isHeld)
        }
        assertEquals(0, ran.get())
        val lease = client.lock(name).awaitTryAcquire(JavaDuration.ZERO)!!
        assertTrue(lease.isHeld)
        lease.awaitClose()
        assertFalse(lease.isHeld)
        assertEquals(Optional.empty<Any>(), client.inspect(name))
    }

    @Test
    fun aNestedWithLockOfTheSameLockWaitsInsteadOfReentering(): Unit = runBlocking {
        val lock = client.lock(name)
        val outerToken = lock.withLock(10.seconds) { outer ->
            assertThrows<LockTimeoutException> {
                runBlocking { lock.withLock(200.milliseconds) { inner: Lease -> inner.fencingToken() } }
            }
            outer.fencingToken()
        }
        assertTrue(outerToken > 0)
        assertEquals(Optional.empty<Any>(), client.inspect(name))
    }

    @Test
    fun argumentsAreChecked(): Unit = runBlocking {
        val lock = client.lock(name)
        val negative = assertThrows<IllegalArgumentException> {
            runBlocking { lock.awaitAcquire(JavaDuration.ofMillis(-1)) }
        }
        assertTrue(negative.message!!.contains(name), negative.message)
        assertEquals(0, client.heldCount())
    }
}
