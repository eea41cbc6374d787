package io.locksmith.tck.server;

import java.io.PrintWriter;
import java.io.StringWriter;

import static org.junit.jupiter.api.Assertions.assertFalse;

/**
 * Checks that a failure a user sees or a log keeps carries no secret: the security tests of every store open clients
 * with wrong, rotated or refused credentials and assert that the error names the store and never the password.
 */
public final class SecretChecks {

    private SecretChecks() {
    }

    /** The failure's messages and stack traces, its causes' and suppressed failures' included. */
    public static String fullText(Throwable failure) {
        StringWriter trace = new StringWriter();
        failure.printStackTrace(new PrintWriter(trace));
        return trace.toString();
    }

    /**
     * Fails unless {@link #fullText(Throwable)} of {@code failure} lacks every one of {@code secrets}.
     *
     * @throws AssertionError if a secret appears, with the text it appears in
     */
    public static void assertNoSecret(Throwable failure, String... secrets) {
        String text = fullText(failure);
        for (String secret : secrets) {
            assertFalse(text.contains(secret), () -> "a secret is in: " + text);
        }
    }
}
