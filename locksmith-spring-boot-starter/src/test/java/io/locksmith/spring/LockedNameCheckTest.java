package io.locksmith.spring;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import java.io.ByteArrayOutputStream;
import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

/** Every {@code #variable} of a {@code @Locked} name is checked against the method's parameters at startup. */
class LockedNameCheckTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(LocksmithAutoConfiguration.class))
            .withPropertyValues("locksmith.uri=mem://names-" + UUID.randomUUID());

    static class StockService {
        // The parameter was renamed from productId to sku; the expression was not.
        @Locked(name = "'stock:' + #productId")
        public void deduct(String sku, int quantity) {
        }
    }

    static class NoParameters {
        @Locked(name = "'report:' + #day")
        public void nightly() {
        }
    }

    @Test
    void nameReferringToAMissingParameterFailsTheStartupNamingMethodExpressionAndParameters() {
        runner.withBean(StockService.class).run(context -> assertThat(context).getFailure().rootCause()
                .isInstanceOf(io.locksmith.LockConfigurationException.class)
                .hasMessageContaining("LockedNameCheckTest$StockService.deduct")
                .hasMessageContaining("\"'stock:' + #productId\"")
                .hasMessageContaining("#productId, which is not a parameter")
                .hasMessageContaining("#sku or #p0 (String), #quantity or #p1 (int)"));
        runner.withBean(NoParameters.class).run(context -> assertThat(context).getFailure().rootCause()
                .hasMessageContaining("NoParameters.nightly").hasMessageContaining("the method has no parameters"));
    }

    @Test
    void withoutCompiledParameterNamesTheStartupFailureSaysSoAndIndexesWork(@TempDir Path dir) throws Exception {
        Class<?> named = compileWithoutParameterNames(dir, """
                package compiled;
                public class Inventory {
                    @io.locksmith.spring.Locked(name = "'stock:' + #sku")
                    public String deduct(String sku) {
                        return io.locksmith.spring.LockContext.currentLease().lockName();
                    }
                }
                """, "compiled.Inventory");
        assertThat(named.getMethod("deduct", String.class).getParameters()[0].isNamePresent()).isFalse();
        runner.withClassLoader(named.getClassLoader()).withBean(named).run(context -> assertThat(context).getFailure()
                .rootCause().hasMessageContaining("Inventory.deduct").hasMessageContaining("#sku, which is not a parameter")
                .hasMessageContaining("its parameters are #p0 (String)")
                .hasMessageContaining("parameter names are not compiled in").hasMessageContaining("-parameters"));

        Class<?> indexed = compileWithoutParameterNames(dir, """
                package compiled;
                public class IndexedInventory {
                    @io.locksmith.spring.Locked(name = "'stock:' + #p0")
                    public String deduct(String sku) {
                        return io.locksmith.spring.LockContext.currentLease().lockName();
                    }
                }
                """, "compiled.IndexedInventory");
        runner.withClassLoader(indexed.getClassLoader()).withBean(indexed).run(context -> {
            Object bean = context.getBean(indexed);
            Method deduct = bean.getClass().getMethod("deduct", String.class);
            assertThat(deduct.invoke(bean, "A-7")).isEqualTo("stock:A-7");
        });
    }

    private static Class<?> compileWithoutParameterNames(Path dir, String source, String className) throws Exception {
        Path file = dir.resolve(className.replace('.', '/') + ".java");
        Files.createDirectories(file.getParent());
        Files.writeString(file, source);
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        ByteArrayOutputStream errors = new ByteArrayOutputStream();
        // No -parameters: what a build without Spring Boot's parent POM produces.
        int status = javac.run(null, null, errors, "-classpath", System.getProperty("java.class.path"),
                "-d", dir.toString(), file.toString());
        assertThat(status).as(errors.toString()).isZero();
        URLClassLoader loader = new URLClassLoader(new URL[] {dir.toUri().toURL()},
                LockedNameCheckTest.class.getClassLoader());
        return loader.loadClass(className);
    }
}
