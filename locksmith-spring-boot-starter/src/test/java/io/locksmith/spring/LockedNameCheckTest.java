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

    record Customer(String name) {
    }

    public static class Order {
        public final String region;
        private final String sku;
        private final Customer customer;

        public Order(String region, String sku, Customer customer) {
            this.region = region;
            this.sku = sku;
            this.customer = customer;
        }

        public String getSku() {
            return sku;
        }

        public Customer getCustomer() {
            return customer;
        }

        public boolean isUrgent() {
            return false;
        }
    }

    static class MisspelledProperty {
        @Locked(name = "'order:' + #order.skuu")
        public void ship(Order order) {
        }
    }

    static class MisspelledChain {
        @Locked(name = "'order:' + #p0.customer.nmae")
        public void ship(Order order) {
        }
    }

    static class MisspelledMethod {
        @Locked(name = "'order:' + #order.sku.toUpperCas()")
        public void ship(Order order) {
        }
    }

    /** One generic box of anything: what is inside is known only at runtime. */
    public static class Box<T> {
        public T content() {
            return null;
        }
    }

    static class PathsThatExist {
        @Locked(name = "#order.region + ':' + #order.sku.toUpperCase() + ':' + #order.customer.name() + ':'"
                + " + #order.urgent + ':' + #order.getSku().length() + ':' + #order?.customer?.name")
        public String ship(Order order) {
            return LockContext.currentLease().lockName();
        }

        @Locked(name = "'x:' + #thing.anything + #payload.whatever + #item.foo + #box.content().bar + #ids.length"
                + " + #attributes.region")
        public <T> void unknownTypes(Object thing, java.util.Map<String, Object> payload, T item, Box<String> box,
                                     long[] ids, java.util.HashMap<String, String> attributes) {
        }
    }

    @Test
    void aPropertyPathThatDoesNotExistOnTheParametersTypeFailsTheStartupNamingIt() {
        runner.withBean(MisspelledProperty.class).run(context -> assertThat(context).getFailure().rootCause()
                .isInstanceOf(io.locksmith.LockConfigurationException.class)
                .hasMessageContaining("LockedNameCheckTest$MisspelledProperty.ship")
                .hasMessageContaining("name \"'order:' + #order.skuu\" reads #order.skuu")
                .hasMessageContaining("LockedNameCheckTest$Order (the type of #order) has no property 'skuu'")
                .hasMessageContaining("its properties are customer, region, sku, urgent"));
        runner.withBean(MisspelledChain.class).run(context -> assertThat(context).getFailure().rootCause()
                .hasMessageContaining("MisspelledChain.ship").hasMessageContaining("reads #p0.customer.nmae")
                .hasMessageContaining("LockedNameCheckTest$Customer (the type of #p0.customer) has no property 'nmae'")
                .hasMessageContaining("its properties are name"));
        runner.withBean(MisspelledMethod.class).run(context -> assertThat(context).getFailure().rootCause()
                .hasMessageContaining("MisspelledMethod.ship").hasMessageContaining("reads #order.sku.toUpperCas()")
                .hasMessageContaining("java.lang.String (the type of #order.sku) has no public method toUpperCas"));
    }

    @Test
    void pathsThatExistOrWhoseTypeOnlyTheRuntimeKnowsStartAndLock() {
        runner.withBean(PathsThatExist.class).run(context -> {
            assertThat(context).hasNotFailed();
            PathsThatExist bean = context.getBean(PathsThatExist.class);
            assertThat(bean.ship(new Order("eu", "a-7", new Customer("ann")))).isEqualTo("eu:A-7:ann:false:3:ann");
        });
    }

    static class NullInAPath {
        @Locked(name = "'order:' + #order.customer.name")
        public void ship(Order order) {
        }

        @Locked(name = "#order.customer.name ?: 'nobody'")
        public void deliver(Order order) {
        }
    }

    @Test
    void aNullInsideAPathFailsTheCallNamingThePartThatIsNull() {
        runner.withBean(NullInAPath.class).run(context -> {
            NullInAPath bean = context.getBean(NullInAPath.class);
            org.assertj.core.api.Assertions.assertThatThrownBy(() -> bean.ship(new Order("eu", "a-7", null)))
                    .isInstanceOf(io.locksmith.LockConfigurationException.class)
                    .hasMessageContaining("NullInAPath.ship")
                    .hasMessageContaining("#order.customer is null in this call, so its name cannot be read")
                    .hasMessageContaining("#order.customer?.name ?: 'none'")
                    .hasNoCause();
            org.assertj.core.api.Assertions.assertThatThrownBy(() -> bean.deliver(null))
                    .isInstanceOf(io.locksmith.LockConfigurationException.class)
                    .hasMessageContaining("NullInAPath.deliver")
                    .hasMessageContaining("#order is null in this call, so its customer cannot be read");
        });
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
