package io.locksmith.lockctl;

import java.io.PrintWriter;
import java.io.StringWriter;

/** One in-process {@code lockctl} run with its exit code and captured output. */
record Run(int exitCode, String out, String err) {

    static Run lockctl(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int code = Lockctl.execute(new PrintWriter(out, true), new PrintWriter(err, true), args);
        // Kept in the surefire report (target/surefire-reports/*-output.txt) for reading what users would see.
        System.out.println("$ lockctl " + String.join(" ", args) + "\n" + out + err + "(exit " + code + ")\n");
        return new Run(code, out.toString(), err.toString());
    }

    /** For assertion messages. */
    String both() {
        return "exit " + exitCode + "\n--- stdout\n" + out + "\n--- stderr\n" + err;
    }
}
