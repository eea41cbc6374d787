package io.locksmith.lockctl;

import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

import java.util.concurrent.Callable;

/** {@code lockctl tck}: waits for the TCK runner (io.locksmith.tck.TckRunner) to land on main. */
@Command(name = "tck", mixinStandardHelpOptions = true,
        description = "Runs the Locksmith TCK against a live store (not in this build yet).")
final class TckCommand implements Callable<Integer> {

    @Mixin
    StoreOption store;

    @Override
    public Integer call() {
        store.uri();
        throw new IllegalStateException("the TCK runner is not in this build yet");
    }
}
