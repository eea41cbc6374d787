package io.locksmith;

/**
 * Thrown when a client cannot be configured: no URI given, an unknown scheme, a malformed URI, an
 * unknown or invalid parameter. The message names the offending part and, for unknown schemes,
 * the schemes that are available.
 */
public class LockConfigurationException extends LockException {
    private static final long serialVersionUID = 1L;

    public LockConfigurationException(String message) {
        super(null, message, null);
    }

    public LockConfigurationException(String message, Throwable cause) {
        super(null, message, cause);
    }
}
