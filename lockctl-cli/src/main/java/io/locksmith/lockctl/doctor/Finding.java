package io.locksmith.lockctl.doctor;

import java.util.Objects;

/**
 * One doctor check's result.
 *
 * @param check    what was checked, with the node it concerns, e.g. {@code redis 10.0.0.5:6379 maxmemory-policy}
 * @param verdict  OK, WARN or FAIL
 * @param detail   what was seen
 * @param fix      what to do about it; empty when the verdict is OK
 */
public record Finding(String check, Verdict verdict, String detail, String fix) {

    public Finding {
        Objects.requireNonNull(check, "check cannot be null");
        Objects.requireNonNull(verdict, "verdict cannot be null");
        detail = detail == null ? "" : detail;
        fix = fix == null ? "" : fix;
    }

    static Finding ok(String check, String detail) {
        return new Finding(check, Verdict.OK, detail, "");
    }

    static Finding warn(String check, String detail, String fix) {
        return new Finding(check, Verdict.WARN, detail, fix);
    }

    static Finding fail(String check, String detail, String fix) {
        return new Finding(check, Verdict.FAIL, detail, fix);
    }
}
