package io.locksmith.lockctl;

import io.locksmith.LockConfigurationException;
import io.locksmith.LockStoreException;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.io.PrintWriter;
import java.util.Arrays;
import java.util.concurrent.Callable;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * {@code lockctl}: the demo, inspect, doctor, the TCK runner and a quick bench for any store whose backend
 * is on the classpath. {@link #execute} runs a command line in-process, which is how the tests drive it.
 */
@Command(name = "lockctl", mixinStandardHelpOptions = true, versionProvider = Lockctl.Version.class,
        description = "Distributed locks that stay safe: see them fail and hold, inspect, diagnose, verify a store.",
        synopsisSubcommandLabel = "COMMAND",
        subcommands = {DemoCommand.class, InspectCommand.class, DoctorCommand.class, TckCommand.class,
                BenchCommand.class, FleetCommand.class, CommandLine.HelpCommand.class},
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {
                "0:ok",
                "1:a check or rule failed (doctor FAIL, required TCK rule failed, unsafe demo run)",
                "2:usage error (bad option, missing argument, bad or unknown store URI)",
                "3:store unreachable"},
        footer = {"", "Run 'lockctl COMMAND --help' for a command's options. Add --verbose for stack traces."})
public final class Lockctl implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Option(names = "--verbose", scope = CommandLine.ScopeType.INHERIT,
            description = "Print stack traces and library logs.")
    boolean verbose;

    /** Runs {@code lockctl} and exits with its exit code. */
    public static void main(String[] args) {
        quietLogging(Arrays.asList(args).contains("--verbose"));
        int code = execute(new PrintWriter(System.out, true), new PrintWriter(System.err, true), args);
        System.exit(code);
    }

    /**
     * Runs a {@code lockctl} command line in this JVM.
     *
     * @return the exit code: {@link ExitCode#OK}, {@link ExitCode#CHECK_FAILED}, {@link ExitCode#USAGE} or
     *         {@link ExitCode#STORE_UNREACHABLE}
     */
    public static int execute(PrintWriter out, PrintWriter err, String... args) {
        boolean verbose = Arrays.asList(args).contains("--verbose");
        CommandLine commandLine = new CommandLine(new Lockctl());
        commandLine.setOut(out);
        commandLine.setErr(err);
        commandLine.setParameterExceptionHandler(Lockctl::usageError);
        commandLine.setExecutionExceptionHandler((e, cl, parseResult) -> failure(e, cl, verbose));
        try {
            return commandLine.execute(args);
        } finally {
            out.flush();
            err.flush();
        }
    }

    @Override
    public Integer call() {
        spec.commandLine().getErr().println("lockctl: missing command (demo, inspect, doctor, tck, bench, fleet)");
        printShortUsage(spec.commandLine(), spec.commandLine().getErr());
        return ExitCode.USAGE;
    }

    private static int usageError(CommandLine.ParameterException e, String[] args) {
        CommandLine commandLine = e.getCommandLine();
        PrintWriter err = commandLine.getErr();
        err.println("lockctl: " + firstLine(e.getMessage()));
        if (!CommandLine.UnmatchedArgumentException.printSuggestions(e, err)) {
            printShortUsage(commandLine, err);
        }
        return ExitCode.USAGE;
    }

    private static int failure(Exception e, CommandLine commandLine, boolean verbose) {
        PrintWriter err = commandLine.getErr();
        int code;
        if (e instanceof UsageException || e instanceof LockConfigurationException
                || e instanceof IllegalArgumentException) {
            err.println("lockctl: " + firstLine(e.getMessage()));
            printShortUsage(commandLine, err);
            code = ExitCode.USAGE;
        } else if (e instanceof LockStoreException) {
            err.println("lockctl: store unreachable: " + firstLine(e.getMessage()));
            code = ExitCode.STORE_UNREACHABLE;
        } else {
            err.println("lockctl: " + e.getClass().getSimpleName() + ": " + firstLine(e.getMessage())
                    + (verbose ? "" : " (run with --verbose for details)"));
            code = ExitCode.CHECK_FAILED;
        }
        if (verbose) {
            e.printStackTrace(err);
        }
        return code;
    }

    /** The synopsis and where to find the rest: a usage error should not scroll the error off the screen. */
    private static void printShortUsage(CommandLine commandLine, PrintWriter err) {
        err.print("Usage: " + commandLine.getHelp().synopsis(0));
        err.println("Try '" + commandLine.getCommandSpec().qualifiedName() + " --help' for more information.");
    }

    static String firstLine(String message) {
        if (message == null) {
            return "(no message)";
        }
        int newline = message.indexOf('\n');
        return newline < 0 ? message : message.substring(0, newline);
    }

    /**
     * Library logs would drown the output, and Curator logs connection failures as errors with stack traces:
     * lockctl reports failures itself, so library logs show only with --verbose. Must run before any logger exists.
     */
    static void quietLogging(boolean verbose) {
        System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", verbose ? "info" : "off");
        System.setProperty("org.slf4j.simpleLogger.logFile", "System.err");
        // gRPC (jetcd) logs through java.util.logging.
        Logger.getLogger("").setLevel(verbose ? Level.INFO : Level.SEVERE);
        for (Handler handler : Logger.getLogger("").getHandlers()) {
            handler.setLevel(verbose ? Level.INFO : Level.SEVERE);
        }
    }

    /** The version from the jar's manifest. */
    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            String version = Lockctl.class.getPackage().getImplementationVersion();
            return new String[] {"lockctl " + (version == null ? "(development build)" : version)
                    + ", Java " + System.getProperty("java.version")};
        }
    }
}
