package io.locksmith.tck.kits;

import io.locksmith.tck.TckRule;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.TestExecutionExceptionHandler;
import org.opentest4j.TestAbortedException;

import java.lang.reflect.Method;
import java.util.Optional;

/**
 * Makes every failure of a rule name the rule, its title, where to look and its place in the spec, whatever
 * threw (an assertion, a time-out, a store exception): "Rule R2.1 (Release is owner-checked) violated: ...".
 * Skips pass through unchanged.
 */
final class RuleFailureMessages implements TestExecutionExceptionHandler {

    @Override
    public void handleTestExecutionException(ExtensionContext context, Throwable throwable) throws Throwable {
        if (throwable instanceof TestAbortedException) {
            throw throwable;
        }
        Optional<TckRule> rule = context.getTestMethod().map(Method::getName).flatMap(TckRule::ofMethod);
        if (rule.isEmpty()) {
            throw throwable;
        }
        AssertionError failure = new AssertionError(describe(rule.get(), throwable), throwable);
        throw failure;
    }

    static String describe(TckRule rule, Throwable throwable) {
        String message = throwable.getMessage() != null ? throwable.getMessage() : throwable.toString();
        return "Rule " + rule.id() + " (" + rule.title() + ") violated: " + message.strip()
                + " -- if this fails, check: " + rule.hint() + " (docs/SPEC.md#" + rule.anchor() + ")";
    }
}
