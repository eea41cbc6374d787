package io.locksmith.lockctl;

import picocli.CommandLine.Command;

import java.util.concurrent.Callable;

@Command(name = "bench", mixinStandardHelpOptions = true, description = "TODO")
final class BenchCommand implements Callable<Integer> {
    @Override
    public Integer call() {
        return ExitCode.OK;
    }
}
