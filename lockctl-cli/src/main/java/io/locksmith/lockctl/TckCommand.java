package io.locksmith.lockctl;

import picocli.CommandLine.Command;

import java.util.concurrent.Callable;

@Command(name = "tck", mixinStandardHelpOptions = true, description = "TODO")
final class TckCommand implements Callable<Integer> {
    @Override
    public Integer call() {
        return ExitCode.OK;
    }
}
