package io.locksmith.tck.kits;

import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Starts the {@link KitContext} of a {@link RuleKit} before each rule and closes it (its clients, providers and
 * helper threads) after, also when the rule failed. Runs around the kit class's own {@code @BeforeEach} and
 * {@code @AfterEach} methods, as a superclass's would.
 */
final class RuleLifecycle implements BeforeEachCallback, AfterEachCallback {

    @Override
    public void beforeEach(ExtensionContext context) {
        contextOf(context).start();
    }

    @Override
    public void afterEach(ExtensionContext context) throws Exception {
        contextOf(context).close();
    }

    private static KitContext contextOf(ExtensionContext context) {
        return ((RuleKit) context.getRequiredTestInstance()).kitContext();
    }
}
