package io.locksmith.redis;

/** The innermost cause of a Redis client's failure, for messages. */
final class Causes {

    private Causes() {
    }

    /**
     * What the server answered or the socket met, when a Redis client's own message hides it ("Unable to connect", "Could
     * not initialize cluster slots cache": a refused {@code AUTH} or command, a failed TLS handshake), as
     * {@code " (message)"}; empty if {@code failure}'s message already says it. A failure without a cause is followed
     * into its first suppressed one: Jedis' cluster keeps the first node's failure there.
     */
    static String rootCause(Throwable failure) {
        Throwable root = failure;
        for (Throwable next = next(root); next != null && next != root; next = next(root)) {
            root = next;
        }
        String message = root.getMessage();
        return root == failure || message == null || failure.getMessage() != null && failure.getMessage().contains(message)
                ? "" : " (" + message + ")";
    }

    private static Throwable next(Throwable failure) {
        if (failure.getCause() != null) {
            return failure.getCause();
        }
        Throwable[] suppressed = failure.getSuppressed();
        return suppressed.length > 0 ? suppressed[0] : null;
    }
}
