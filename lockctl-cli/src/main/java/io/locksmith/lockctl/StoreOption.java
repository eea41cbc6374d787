package io.locksmith.lockctl;

import io.locksmith.LockClient;
import picocli.CommandLine.Option;

/** The {@code --uri} option shared by the commands that talk to a store. */
final class StoreOption {

    @Option(names = "--uri", paramLabel = "URI",
            description = "Store URI, e.g. redis://127.0.0.1:6379, zookeeper://127.0.0.1:2181/locks, "
                    + "etcd://127.0.0.1:2379. Default: -Dlocksmith.uri, $LOCKSMITH_URI, or locksmith.uri in a"
                    + " locksmith.properties on the class path.")
    String uri;

    /**
     * The URI given, or the one {@link LockClient#fromEnvironment()} would open.
     *
     * @throws UsageException if none is set
     */
    String uri() {
        if (uri != null && !uri.isBlank()) {
            return uri;
        }
        return LockClient.environmentUri().orElseThrow(() ->
                new UsageException("missing --uri (or set " + LockClient.ENV_VARIABLE + ")"));
    }
}
