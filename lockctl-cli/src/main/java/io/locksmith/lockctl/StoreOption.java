package io.locksmith.lockctl;

import io.locksmith.LockClient;
import picocli.CommandLine.Option;

/** The {@code --uri} option shared by the commands that talk to a store. */
final class StoreOption {

    @Option(names = "--uri", paramLabel = "URI",
            description = "Store URI, e.g. redis://127.0.0.1:6379, zookeeper://127.0.0.1:2181/locks, "
                    + "etcd://127.0.0.1:2379. Default: -Dlocksmith.uri or $LOCKSMITH_URI.")
    String uri;

    /**
     * The URI given, or the one from the environment.
     *
     * @throws UsageException if none is set
     */
    String uri() {
        if (uri != null && !uri.isBlank()) {
            return uri;
        }
        String fromProperty = System.getProperty(LockClient.SYSTEM_PROPERTY);
        if (fromProperty != null && !fromProperty.isBlank()) {
            return fromProperty;
        }
        String fromEnvironment = System.getenv(LockClient.ENV_VARIABLE);
        if (fromEnvironment != null && !fromEnvironment.isBlank()) {
            return fromEnvironment;
        }
        throw new UsageException("missing --uri (or set " + LockClient.ENV_VARIABLE + ")");
    }
}
