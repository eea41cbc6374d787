package io.locksmith.lockctl;

import java.io.PrintWriter;
import java.io.StringWriter;

/** One in-process {@code lockctl} run with its exit code and captured output. */
record Run(int exitCode, String out, String err) {

    static Run lockctl(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int code = Lockctl.execute(new PrintWriter(out, true), new PrintWriter(err, true), args);
        return new Run(code, out.toString(), err.toString());
    }

    /** For assertion messages. */
    String both() {
        return "exit " + exitCode + "\n--- stdout\n" + out + "\n--- stderr\n" + err;
    }
}
