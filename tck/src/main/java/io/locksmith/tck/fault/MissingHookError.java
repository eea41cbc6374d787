package io.locksmith.tck.fault;

/**
 * A fault rule the kit class's {@link DeploymentShape} requires could not run, because the class does not give the
 * hook it needs: a failure of the kit class, not a violation by the store. Its message names the rule, the hook and
 * how to give it.
 */
public final class MissingHookError extends AssertionError {

    private static final long serialVersionUID = 1L;

    MissingHookError(String message) {
        super(message);
    }
}
