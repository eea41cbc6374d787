/**
 * Locksmith for Project Reactor: {@link io.locksmith.reactor.ReactiveLocks} acquires locks as {@code Mono}s and
 * holds them for the lifetime of a {@code Mono} or {@code Flux}, over the lock API's asynchronous acquire.
 */
module io.locksmith.reactor {
    requires transitive io.locksmith;
    // The API hands out Mono and Flux, and takes Publishers.
    requires transitive reactor.core;
    requires transitive org.reactivestreams;
    requires org.slf4j;

    exports io.locksmith.reactor;
}
