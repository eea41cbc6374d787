package io.locksmith.tck.kits;

import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

import java.util.concurrent.TimeUnit;

/**
 * What every kit of the module is: a JUnit 5 test interface whose rules are {@code default} test methods, run by
 * whatever class implements it. {@link io.locksmith.tck.LockTck} implements every rule kit (one per group of
 * {@code docs/SPEC.md}: {@link ExclusionKit}, {@link HistoryKit}, {@link OwnershipKit}, {@link ExpiryKit},
 * {@link ReentryKit}, {@link FencingKit}, {@link RenewalKit}, {@link WaitingKit}, {@link LifecycleKit},
 * {@link SpiFaultKit}), so that a backend author extends that one class; {@link io.locksmith.tck.StoreTck} adds
 * {@link ListingKit} and {@link RegistryKit}.
 *
 * <p>Why interfaces and not {@code @Nested} classes: the rules then are methods of the author's own kit class,
 * so Maven Surefire counts and files them under that class ({@code Tests run: N -- in MyStoreLockTckTest}) and
 * {@code -Dtest=MyStoreLockTckTest#required_r2_1*} selects one; Surefire 3.5 files the tests of {@code @Nested}
 * classes under the class that declares them and reports the author's class as {@code Tests run: 0}
 * (maven-surefire#3356), and its method filter does not reach into them.
 *
 * <p>Each rule runs with a fresh {@link KitContext} (started before the rule, closed after it, with every client it
 * opened), a time-out, so a broken store cannot hang the kit, and failure messages that name the rule.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
@ExtendWith({RuleLifecycle.class, RuleFailureMessages.class})
public interface RuleKit {

    /** The store under test and the resources of the running rule; one per test instance. */
    KitContext kitContext();
}
