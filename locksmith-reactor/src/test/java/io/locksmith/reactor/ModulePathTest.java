package io.locksmith.reactor;

import org.junit.jupiter.api.Test;

import java.io.File;
import java.lang.module.Configuration;
import java.lang.module.ModuleFinder;
import java.lang.reflect.Method;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.function.Function;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A lock held for the lifetime of a {@code Mono} through the module path: {@code io.locksmith} and
 * {@code io.locksmith.reactor} as named modules (their module-info), Reactor and Reactive Streams as the modules they
 * declare, in a layer whose class loader cannot see the test class path. The rest of the suite runs on the class
 * path (surefire {@code useModulePath=false}).
 */
class ModulePathTest {

    private static final List<String> MODULE_JARS = List.of("reactor-core-", "reactive-streams-", "slf4j-api-",
            "locksmith-api-", "locksmith-reactor-");

    @Test
    void lockHeldForAMonoThroughTheModulePath() throws Exception {
        ModuleLayer layer = layerOf(modulePath());
        Module adapter = layer.findModule("io.locksmith.reactor").orElseThrow();
        assertFalse(adapter.getDescriptor().isAutomatic(), "io.locksmith.reactor must be a named module (module-info)");
        assertTrue(adapter.isExported("io.locksmith.reactor"));

        ClassLoader loader = layer.findLoader("io.locksmith.reactor");
        Class<?> clientType = loader.loadClass("io.locksmith.LockClient");
        Class<?> lockType = loader.loadClass("io.locksmith.DistributedLock");
        Class<?> leaseType = loader.loadClass("io.locksmith.Lease");
        Class<?> monoType = loader.loadClass("reactor.core.publisher.Mono");
        Class<?> locksType = loader.loadClass("io.locksmith.reactor.ReactiveLocks");
        assertEquals(adapter, locksType.getModule());

        // Stores are looked up through the context class loader: the layer's here, or the class path copy is found.
        Thread thread = Thread.currentThread();
        ClassLoader previous = thread.getContextClassLoader();
        thread.setContextClassLoader(loader);
        Object client;
        try {
            client = clientType.getMethod("open", String.class).invoke(null, "mem://module-path");
        } finally {
            thread.setContextClassLoader(previous);
        }
        try {
            Object lock = clientType.getMethod("lock", String.class).invoke(client, "module-path");
            Method just = monoType.getMethod("just", Object.class);
            Function<Object, Object> work = lease -> {
                try {
                    return just.invoke(null, leaseType.getMethod("fencingToken").invoke(lease));
                } catch (ReflectiveOperationException e) {
                    throw new IllegalStateException(e);
                }
            };
            Object mono = locksType.getMethod("withLock", lockType, Duration.class, Function.class)
                    .invoke(null, lock, Duration.ofSeconds(10), work);
            Object token = monoType.getMethod("block", Duration.class).invoke(mono, Duration.ofSeconds(30));
            assertTrue((Long) token > 0);
            assertEquals(0, clientType.getMethod("heldCount").invoke(client));
        } finally {
            clientType.getMethod("close").invoke(client);
        }
    }

    /** The API and this module (jars or the reactor's target/classes) and the jars they need, from the class path. */
    private static List<Path> modulePath() {
        List<Path> path = new ArrayList<>();
        for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
            Path p = Path.of(entry);
            String name = p.getFileName().toString();
            boolean ours = entry.endsWith("lock-api" + File.separator + "target" + File.separator + "classes")
                    || entry.endsWith("locksmith-reactor" + File.separator + "target" + File.separator + "classes");
            if (ours || MODULE_JARS.stream().anyMatch(name::startsWith)) {
                path.add(p);
            }
        }
        return path;
    }

    private static ModuleLayer layerOf(List<Path> modulePath) {
        ModuleFinder finder = ModuleFinder.of(modulePath.toArray(Path[]::new));
        Configuration configuration = ModuleLayer.boot().configuration()
                .resolveAndBind(finder, ModuleFinder.of(), Set.of("io.locksmith", "io.locksmith.reactor"));
        // The platform loader as parent: nothing on the test class path is visible to the layer.
        return ModuleLayer.boot().defineModulesWithOneLoader(configuration, ClassLoader.getPlatformClassLoader());
    }
}
