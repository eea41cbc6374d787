package io.locksmith.lockctl.doctor;

import io.locksmith.spi.LockUri;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * {@code lockctl doctor}: the checks of the lock-failure cheat sheet for one store. The store's own client
 * reads its settings and state; then, unless read-only, a probe lock goes through Locksmith.
 */
public final class Doctor {

    private static final List<StoreDoctor> STORE_DOCTORS = List.of(new RedisDoctor(), new ZooKeeperDoctor(),
            new EtcdDoctor(), new PostgresDoctor());

    private Doctor() {
    }

    /**
     * Examines the store of {@code uri}.
     *
     * @param readOnly skip the probe lock, so nothing at all is written
     * @param timeout  how long any one request may take
     * @throws io.locksmith.LockConfigurationException if the URI is malformed or its scheme unknown
     * @throws io.locksmith.LockStoreException         if the store cannot be reached
     */
    public static List<Finding> examine(String uri, boolean readOnly, Duration timeout) {
        LockUri parsed = LockUri.parse(uri);
        List<Finding> findings = new ArrayList<>();
        Optional<StoreDoctor> storeDoctor = forScheme(parsed.scheme());
        if (storeDoctor.isPresent()) {
            findings.addAll(storeDoctor.get().examine(parsed, timeout));
        } else {
            findings.add(Finding.ok("store checks", "no store-specific checks for " + parsed.scheme()
                    + "://" + (readOnly ? "" : "; the probe lock below is the test")));
        }
        if (readOnly) {
            findings.add(Finding.ok("probe lock", "skipped (--read-only): nothing was written"));
        } else {
            findings.addAll(ProbeCheck.run(uri, timeout));
        }
        return findings;
    }

    /** Whether doctor has store-specific checks for {@code scheme}. */
    public static boolean hasStoreChecks(String scheme) {
        return forScheme(scheme).isPresent();
    }

    private static Optional<StoreDoctor> forScheme(String scheme) {
        String lower = scheme.toLowerCase(Locale.ROOT);
        return STORE_DOCTORS.stream().filter(doctor -> doctor.schemes().contains(lower)).findFirst();
    }

    /** The worst verdict among {@code findings}. */
    public static Verdict worst(List<Finding> findings) {
        Verdict worst = Verdict.OK;
        for (Finding finding : findings) {
            if (finding.verdict().compareTo(worst) > 0) {
                worst = finding.verdict();
            }
        }
        return worst;
    }
}
