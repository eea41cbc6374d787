package io.locksmith.spring;

import io.locksmith.LockConfigurationException;
import io.locksmith.LockException;
import io.locksmith.LockStoreException;
import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Puts Locksmith's own message into Spring Boot's "APPLICATION FAILED TO START" block, with what to do, instead of
 * a chain of {@code BeanCreationException}s: a wrong {@code locksmith.*} setting, a missing backend artifact, a bad
 * {@code @Locked} annotation, a store that does not answer.
 */
public class LocksmithFailureAnalyzer extends AbstractFailureAnalyzer<LockException> {

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, LockException cause) {
        String description = "Locksmith: " + cause.getMessage();
        String action;
        if (cause instanceof LockStoreException) {
            action = "Start the lock store or correct locksmith.uri. To let the application start while the store is"
                    + " down (health DOWN and lock calls failing at once until it answers), set locksmith.startup=lazy.";
        } else if (cause instanceof LockConfigurationException && cause.getMessage() != null
                && cause.getMessage().contains("add it to the class path")) {
            action = "Add the Locksmith artifact named above to the application's dependencies (runtime scope is"
                    + " enough), or correct the scheme of locksmith.uri.";
        } else if (cause.getMessage() != null && cause.getMessage().startsWith("@Locked")) {
            action = "Correct the @Locked annotation named above (see docs/SPRING.md, @Locked).";
        } else {
            action = "Correct the Locksmith configuration named above (locksmith.* properties or locksmith.uri; see"
                    + " docs/SPRING.md and docs/CONFIGURATION.md).";
        }
        return new FailureAnalysis(description, action, cause);
    }
}
