package io.locksmith.migrate;

import io.locksmith.LockConfigurationException;
import io.locksmith.internal.ProviderRegistry;
import io.locksmith.spi.LockProvider;
import io.locksmith.spi.LockProviderFactory;
import io.locksmith.spi.LockUri;
import io.locksmith.spi.ProviderContext;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;

/**
 * {@code migrate:?from=URI&to=URI&phase=from|dual|to[&from.KEY=V][&to.KEY=V][&guardTtl=30s]}: locks over
 * two stores while a fleet moves from one to the other. Parameters {@code from.KEY} and {@code to.KEY} are
 * passed to the old and new store's URI as {@code KEY}, so nested URIs need no escaping; a nested URI may
 * also carry its own parameters percent-encoded. See {@code docs/MIGRATION.md}.
 */
public final class MigratingLockProviderFactory implements LockProviderFactory {

    private static final Duration DEFAULT_GUARD_TTL = Duration.ofSeconds(30);

    /** True for {@link Migration#observer()}: clients that read only, announcing no phase. */
    private final boolean observer;

    /** The factory {@link java.util.ServiceLoader} finds: clients announce their phase and are guarded. */
    public MigratingLockProviderFactory() {
        this(false);
    }

    MigratingLockProviderFactory(boolean observer) {
        this.observer = observer;
    }

    @Override
    public Set<String> schemes() {
        return Set.of("migrate");
    }

    @Override
    public LockProvider create(LockUri uri, ProviderContext context) {
        if (!uri.rawHosts().isEmpty() || !uri.path().isEmpty()) {
            throw new LockConfigurationException("'" + uri + "' names a host or path, which migrate: does not take (it"
                    + " would be ignored); write migrate:?from=OLD_URI&to=NEW_URI&phase=from|dual|to");
        }
        MigrationPhase phase = MigrationPhase.parse(uri.parameter("phase").orElseThrow(() -> missing(uri, "phase")));
        Duration guardTtl = uri.duration("guardTtl", DEFAULT_GUARD_TTL);
        String fromUri = childUri(uri, "from");
        String toUri = childUri(uri, "to");
        if (sameStore(LockUri.parse(fromUri), LockUri.parse(toUri))) {
            throw new LockConfigurationException("'" + uri + "': 'from' and 'to' name the same store ("
                    + LockUri.redact(fromUri) + "); a dual-phase client would then wait for itself on every lock."
                    + " Migrate between two different stores");
        }
        AtomicReference<MigratingLockProvider> self = new AtomicReference<>();
        ProviderContext childContext = new ProviderContext(context.clientId(), (grant, reason, cause) -> {
            MigratingLockProvider provider = self.get();
            if (provider != null) {
                provider.childLost(grant, reason, cause);
            }
        });
        List<AutoCloseable> opened = new ArrayList<>();
        try {
            LockProvider from = open(fromUri, childContext, "from");
            opened.add(from);
            LockProvider to = open(toUri, childContext, "to");
            opened.add(to);
            PhaseGuard guard = observer ? PhaseGuard.observer(context.clientId(), phase, List.of(from, to))
                    : PhaseGuard.start(context.clientId(), phase, List.of(from, to), guardTtl);
            opened.add(guard);
            MigratingLockProvider provider = new MigratingLockProvider(phase, from, to, context.lossListener(), guard);
            self.set(provider);
            return provider;
        } catch (RuntimeException e) {
            for (int i = opened.size() - 1; i >= 0; i--) {
                try {
                    opened.get(i).close();
                } catch (Exception suppressed) {
                    e.addSuppressed(suppressed);
                }
            }
            throw e;
        }
    }

    /** Whether two store URIs name the same store: same scheme family, hosts and path (parameters aside). */
    static boolean sameStore(LockUri from, LockUri to) {
        return family(from.scheme()).equals(family(to.scheme()))
                && hostSet(from).equals(hostSet(to))
                && normalizedPath(from).equals(normalizedPath(to));
    }

    private static String family(String scheme) {
        return scheme.replace("rediss", "redis");
    }

    private static Set<String> hostSet(LockUri uri) {
        Set<String> hosts = new java.util.TreeSet<>();
        for (String host : uri.rawHosts()) {
            hosts.add(host.toLowerCase(java.util.Locale.ROOT).replace("localhost", "127.0.0.1"));
        }
        return hosts;
    }

    private static String normalizedPath(LockUri uri) {
        String path = uri.path();
        return path.endsWith("/") ? path.substring(0, path.length() - 1) : path;
    }

    /** Opens the store of one side, rejecting parameters its provider did not read. */
    static LockProvider open(String childUri, ProviderContext context, String side) {
        LockUri parsed = LockUri.parse(childUri);
        if (parsed.scheme().equals("migrate")) {
            throw new LockConfigurationException("the '" + side + "' store of a migration cannot itself be migrate:");
        }
        LockProvider provider = ProviderRegistry.forScheme(parsed.scheme(), parsed.toString()).create(parsed, context);
        Set<String> unread = parsed.unreadParameters();
        if (!unread.isEmpty()) {
            provider.close();
            throw new LockConfigurationException("unknown parameter(s) " + unread + " for the '" + side + "' store '"
                    + parsed + "' (lease, renew and maxHold go on the migrate: URI itself)");
        }
        return provider;
    }

    /** The {@code from} or {@code to} URI with its {@code side.KEY} parameters appended. */
    static String childUri(LockUri uri, String side) {
        StringBuilder child = new StringBuilder(uri.parameter(side).orElseThrow(() -> missing(uri, side)));
        String prefix = side + ".";
        boolean hasQuery = child.indexOf("?") >= 0;
        for (Map.Entry<String, String> parameter : uri.parameters().entrySet()) {
            if (parameter.getKey().startsWith(prefix)) {
                uri.markRead(parameter.getKey());
                child.append(hasQuery ? '&' : '?')
                        .append(parameter.getKey().substring(prefix.length())).append('=')
                        .append(URLEncoder.encode(parameter.getValue(), StandardCharsets.UTF_8));
                hasQuery = true;
            }
        }
        return child.toString();
    }

    private static LockConfigurationException missing(LockUri uri, String parameter) {
        return new LockConfigurationException("'" + uri + "' lacks the parameter '" + parameter
                + "'; write migrate:?from=OLD_URI&to=NEW_URI&phase=from|dual|to");
    }
}
