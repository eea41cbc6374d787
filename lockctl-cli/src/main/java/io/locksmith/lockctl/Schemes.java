package io.locksmith.lockctl;

import io.locksmith.spi.LockProviderFactory;

import java.util.ServiceLoader;
import java.util.Set;
import java.util.TreeSet;

/** The lock store schemes whose backends are on the classpath. */
final class Schemes {

    private Schemes() {
    }

    static Set<String> available() {
        Set<String> schemes = new TreeSet<>();
        for (LockProviderFactory factory : ServiceLoader.load(LockProviderFactory.class)) {
            schemes.addAll(factory.schemes());
        }
        return schemes;
    }
}
