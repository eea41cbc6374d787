package io.locksmith.tck.selftest;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.Arrays;
import java.util.stream.Stream;

/**
 * The mutant suite's controls ({@link Mutant#isControl()}: a decorator that changes nothing, one that only adds
 * latency) must pass the whole kit, so that a mutant caught by {@link MutantSuiteTest} is caught for its bug and not
 * for the decorator around it. Apart from the mutants because each control runs the whole kit (about 40 s).
 */
class MutantControlsTest {

    @ParameterizedTest(name = "{0}")
    @MethodSource("controls")
    void theControlsPassTheWholeKit(Mutant control) {
        MutantSuiteTest.runAndCheck(control);
    }

    static Stream<Mutant> controls() {
        return Arrays.stream(Mutant.values()).filter(Mutant::isControl);
    }
}
