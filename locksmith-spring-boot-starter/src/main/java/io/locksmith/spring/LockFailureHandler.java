package io.locksmith.spring;

/**
 * Decides what a {@link Locked @Locked} call returns when its lock was not obtained, instead of the default
 * of throwing: a cached value, a "try later" result, a different exception. Declare it as a bean and name it
 * in {@link Locked#failureHandler()} or, for every {@code @Locked} method that chooses nothing,
 * in {@code locksmith.annotation.failure-handler}:
 * <pre>{@code
 * @Bean
 * LockFailureHandler stockBusy() {
 *     return failure -> {
 *         if (failure.isTimeout()) {
 *             return StockResult.busy(failure.lockName());
 *         }
 *         throw failure.cause();
 *     };
 * }
 * }</pre>
 * The handler runs on the caller's thread, without the lock, and the annotated method does not run.
 */
@FunctionalInterface
public interface LockFailureHandler {

    /**
     * The outcome of the failed call.
     *
     * @param failure what was asked for and why it was not obtained
     * @return the value the call returns; it must fit the method's return type ({@code null} for {@code void};
     *         never {@code null} for a primitive)
     * @throws RuntimeException to make the call throw it (re-throw {@link LockFailure#cause()} to keep the
     *                          default behaviour)
     */
    Object handle(LockFailure failure);
}
