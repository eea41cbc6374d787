package io.locksmith.kotlin

import io.locksmith.LockClient
import io.locksmith.reactor.ReactiveLocks
import io.locksmith.spring.Locked
import io.locksmith.spring.LocksmithAutoConfiguration
import kotlinx.coroutines.CompletableDeferred
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.async
import kotlinx.coroutines.awaitAll
import kotlinx.coroutines.awaitCancellation
import kotlinx.coroutines.cancelAndJoin
import kotlinx.coroutines.delay
import kotlinx.coroutines.launch
import kotlinx.coroutines.reactor.awaitSingle
import kotlinx.coroutines.runBlocking
import org.awaitility.Awaitility.await
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.Test
import org.springframework.boot.autoconfigure.AutoConfigurations
import org.springframework.boot.test.context.runner.ApplicationContextRunner
import java.time.Duration
import java.util.UUID
import java.util.concurrent.ConcurrentLinkedQueue
import java.util.concurrent.atomic.AtomicInteger
import java.util.concurrent.atomic.AtomicLong

/** State of [Stock], read through a method: the proxy's own fields are empty. */
class StockState {
    val quantity = AtomicLong(1000)
    val inside = AtomicInteger()
    val overlaps = AtomicInteger()
    val tokens = ConcurrentLinkedQueue<Long>()
    val entered = CompletableDeferred<Unit>()
}

open class Stock {
    private val state = StockState()

    open fun state(): StockState = state

    /** Reads, suspends, writes: two holdings at once lose an update. */
    @Locked(name = "'stock:' + #sku", waitTime = "120s")
    open suspend fun deduct(sku: String): Long {
        val lease = ReactiveLocks.currentLease().awaitSingle()
        if (state.inside.incrementAndGet() > 1) {
            state.overlaps.incrementAndGet()
        }
        state.tokens.add(lease.fencingToken())
        val read = state.quantity.get()
        delay(1)
        state.quantity.set(read - 1)
        state.inside.decrementAndGet()
        return read - 1
    }

    @Locked(name = "'stock:' + #sku", waitTime = "120s")
    open suspend fun holdUntilCancelled(sku: String) {
        state.entered.complete(Unit)
        awaitCancellation()
    }
}

/** SKIP on a suspend function whose return type cannot be null: refused at startup. */
open class NonNullSkip {
    @Locked(name = "'skip-non-null'", waitTime = "100ms", onFailure = Locked.OnFailure.SKIP)
    open suspend fun read(): String = "value"
}

/** SKIP on a suspend function whose return type is nullable: a busy lock returns null. */
open class NullableSkip {
    @Locked(name = "'skip:' + #sku", waitTime = "100ms", onFailure = Locked.OnFailure.SKIP)
    open suspend fun read(sku: String): String? = "value"
}

/**
 * `@Locked` on a Kotlin suspend function holds the lock until the function returns, throws or is cancelled, without a
 * thread waiting: Spring AOP runs it as a Mono (kotlinx-coroutines-reactor) and the starter holds the lock for that
 * Mono through locksmith-reactor.
 */
class LockedSuspendFunctionTest {

    private val store = "mem://suspend-${UUID.randomUUID()}"
    private val runner = ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(LocksmithAutoConfiguration::class.java))
        .withBean(Stock::class.java)
        .withPropertyValues("locksmith.uri=$store")

    @Test
    fun twoHundredConcurrentCallsKeepTheStockExactAndCancellationReleases() {
        runner.run { context ->
            val stock = context.getBean(Stock::class.java)
            val state = stock.state()
            val client = context.getBean(LockClient::class.java)
            val sku = "A-${UUID.randomUUID()}"
            runBlocking(Dispatchers.Default) {
                (1..200).map { async { stock.deduct(sku) } }.awaitAll()
            }
            assertEquals(800L, state.quantity.get(), "updates lost")
            assertEquals(0, state.overlaps.get())
            val tokens = state.tokens.toList()
            assertEquals(200, tokens.size)
            assertEquals(tokens.sorted(), tokens)
            assertEquals(200, tokens.toSet().size)
            assertEquals(0, client.heldCount())

            runBlocking {
                val holder = launch(Dispatchers.Default) { stock.holdUntilCancelled(sku) }
                state.entered.await()
                assertTrue(client.inspect("stock:$sku").isPresent)
                holder.cancelAndJoin()
            }
            await().atMost(Duration.ofSeconds(30)).until { client.heldCount() == 0 }
            assertTrue(client.inspect("stock:$sku").isEmpty)
        }
    }

    /** A skipped call returns null: a `String` caller would hold a null and fail far from the lock. */
    @Test
    fun skipOnASuspendFunctionWhoseResultCannotBeNullIsRefusedAtStartup() {
        runner.withBean(NonNullSkip::class.java).run { context ->
            val failure = context.startupFailure
            assertTrue(failure != null, "the context started")
            var cause: Throwable? = failure
            val messages = StringBuilder()
            while (cause != null) {
                messages.append(cause.message).append('\n')
                cause = cause.cause
            }
            assertTrue(messages.contains("NonNullSkip.read") && messages.contains("kotlin.String is not nullable")
                    && messages.contains("SKIP"), messages.toString())
        }
    }

    @Test
    fun skipOnASuspendFunctionWithANullableResultReturnsNullWhileTheLockIsBusy() {
        runner.withBean(NullableSkip::class.java).run { context ->
            val skipping = context.getBean(NullableSkip::class.java)
            val sku = UUID.randomUUID().toString()
            LockClient.open(store).use { other ->
                other.lock("skip:$sku").acquire(Duration.ofSeconds(5)).use {
                    assertEquals(null, runBlocking { skipping.read(sku) })
                }
            }
            assertEquals("value", runBlocking { skipping.read(sku) })
        }
    }
}
