package io.locksmith.tck.fault;

import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.TestExecutionExceptionHandler;
import org.opentest4j.TestAbortedException;

import java.lang.reflect.Method;
import java.util.Optional;

/**
 * Makes every failure of a fault rule name the rule, its title, where to look and its place in the spec:
 * "Rule R9.2 (...) violated: ...". Skips, and a hook missing on a deployment that requires the rule (a failure of the
 * kit class, which says so itself), pass through unchanged.
 */
final class FaultRuleFailureMessages implements TestExecutionExceptionHandler {

    @Override
    public void handleTestExecutionException(ExtensionContext context, Throwable throwable) throws Throwable {
        if (throwable instanceof TestAbortedException || throwable instanceof MissingHookError) {
            throw throwable;
        }
        Optional<FaultRule> rule = context.getTestMethod().map(Method::getName).flatMap(FaultRule::ofMethod);
        if (rule.isEmpty()) {
            throw throwable;
        }
        String message = throwable.getMessage() != null ? throwable.getMessage() : throwable.toString();
        throw new AssertionError("Rule " + rule.get().id() + " (" + rule.get().title() + ") violated: " + message.strip()
                + " -- if this fails, check: " + rule.get().hint() + " (docs/SPEC.md#" + rule.get().anchor() + ")",
                throwable);
    }
}
