package io.locksmith.lockctl;

import picocli.CommandLine.Command;

import java.util.concurrent.Callable;

@Command(name = "doctor", mixinStandardHelpOptions = true, description = "TODO")
final class DoctorCommand implements Callable<Integer> {
    @Override
    public Integer call() {
        return ExitCode.OK;
    }
}
