package io.locksmith.redis;

import io.locksmith.tck.server.ServerProcess;
import io.locksmith.tck.server.StoreServers;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.File;
import java.lang.module.Configuration;
import java.lang.module.ModuleFinder;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.ServiceLoader;
import java.util.Set;
import java.util.UUID;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A lock on a real redis-server taken through the module path: {@code io.locksmith} and
 * {@code io.locksmith.redis} as named modules (their module-info), Jedis and its dependencies as automatic
 * modules, in a layer of its own whose class loader cannot see the test class path. The backend is found only
 * through {@code provides}/{@code uses}; the shared client runs under strong encapsulation.
 *
 * <p>The rest of the suite runs on the class path (surefire {@code useModulePath=false}): the tests share
 * packages with the code and the TCK and store servers are plain jars.
 */
class ModulePathTest {

    /** The jars the redis backend needs at run time with the Jedis transport (Redisson is optional). */
    private static final List<String> MODULE_JARS = List.of("jedis-", "commons-pool2-", "json-", "gson-",
            "error_prone_annotations-", "redis-authx-core-", "slf4j-api-");

    private ServerProcess redis;

    @BeforeEach
    void startRedis() {
        redis = StoreServers.redis();
    }

    @AfterEach
    void stopRedis() {
        redis.close();
    }

    @Test
    void lockThroughTheModulePath() throws Exception {
        ModuleLayer layer = layerOf(modulePath());

        Module api = layer.findModule("io.locksmith").orElseThrow();
        Module backend = layer.findModule("io.locksmith.redis").orElseThrow();
        assertFalse(api.getDescriptor().isAutomatic(), "io.locksmith must be a named module (module-info)");
        assertFalse(backend.getDescriptor().isAutomatic(), "io.locksmith.redis must be a named module");
        assertTrue(api.isExported("io.locksmith") && api.isExported("io.locksmith.spi"));
        assertFalse(api.isExported("io.locksmith.internal"), "the shared client is not API");

        ClassLoader loader = layer.findLoader("io.locksmith");
        Class<?> factoryType = loader.loadClass("io.locksmith.spi.LockProviderFactory");
        List<String> factories = new ArrayList<>();
        ServiceLoader.load(layer, factoryType).stream().forEach(p -> factories.add(p.type().getName()));
        assertTrue(factories.contains("io.locksmith.redis.RedisLockProviderFactory"),
                "the backend's provides clause is not seen: " + factories);

        Class<?> clientType = loader.loadClass("io.locksmith.LockClient");
        Class<?> lockType = loader.loadClass("io.locksmith.DistributedLock");
        Class<?> leaseType = loader.loadClass("io.locksmith.Lease");
        // Backends are looked up through the context class loader (as in an application server). In an
        // application started with --module-path that is the loader of the modules; here it must be set to the
        // layer's, or the class path copy of the backend would be found.
        Thread thread = Thread.currentThread();
        ClassLoader previous = thread.getContextClassLoader();
        thread.setContextClassLoader(loader);
        Object client;
        try {
            client = clientType.getMethod("open", String.class).invoke(null, "redis://127.0.0.1:" + redis.port());
        } finally {
            thread.setContextClassLoader(previous);
        }
        try {
            assertEquals(api, client.getClass().getModule(), "the client must come from the module, not the class path");
            Object lock = clientType.getMethod("lock", String.class).invoke(client, "module-path-" + UUID.randomUUID());
            Object lease = lockType.getMethod("acquire", Duration.class).invoke(lock, Duration.ofSeconds(10));
            assertEquals(Boolean.TRUE, leaseType.getMethod("isHeld").invoke(lease));
            assertEquals(1, clientType.getMethod("heldCount").invoke(client));
            leaseType.getMethod("close").invoke(lease);
            assertEquals(0, clientType.getMethod("heldCount").invoke(client));
        } finally {
            clientType.getMethod("close").invoke(client);
        }
    }

    /** The API and this backend (jars or the reactor's target/classes) and the jars they need, from the class path. */
    private static List<Path> modulePath() {
        List<Path> path = new ArrayList<>();
        for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
            Path p = Path.of(entry);
            String name = p.getFileName().toString();
            boolean apiOrBackend = entry.endsWith("lock-api" + File.separator + "target" + File.separator + "classes")
                    || entry.endsWith("backend-redis" + File.separator + "target" + File.separator + "classes")
                    || name.startsWith("locksmith-api-");
            if (apiOrBackend || MODULE_JARS.stream().anyMatch(name::startsWith)) {
                path.add(p);
            }
        }
        return path;
    }

    private static ModuleLayer layerOf(List<Path> modulePath) {
        ModuleFinder finder = ModuleFinder.of(modulePath.toArray(Path[]::new));
        Configuration configuration = ModuleLayer.boot().configuration()
                .resolveAndBind(finder, ModuleFinder.of(), Set.of("io.locksmith", "io.locksmith.redis"));
        // The platform loader as parent: nothing on the test class path is visible to the layer.
        return ModuleLayer.boot().defineModulesWithOneLoader(configuration, ClassLoader.getPlatformClassLoader());
    }
}
