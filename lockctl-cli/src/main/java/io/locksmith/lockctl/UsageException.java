package io.locksmith.lockctl;

/** A command line that parsed but makes no sense (a missing store URI, an option the store cannot honour): exit code 2. */
final class UsageException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    UsageException(String message) {
        super(message);
    }
}
