package io.locksmith.kotlin

import java.util.UUID

/** [CoroutineLocksContract] on `mem://`, a store of its own per test. */
class MemCoroutineLocksTest : CoroutineLocksContract() {
    override fun storeUri(): String = "mem://coroutines-${UUID.randomUUID()}"
}
