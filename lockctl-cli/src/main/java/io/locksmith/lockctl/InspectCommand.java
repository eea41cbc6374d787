package io.locksmith.lockctl;

import picocli.CommandLine.Command;

import java.util.concurrent.Callable;

@Command(name = "inspect", mixinStandardHelpOptions = true, description = "TODO")
final class InspectCommand implements Callable<Integer> {
    @Override
    public Integer call() {
        return ExitCode.OK;
    }
}
