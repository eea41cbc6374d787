package io.locksmith.architecture;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.library.dependencies.SliceAssignment;
import com.tngtech.archunit.library.dependencies.SliceIdentifier;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

/**
 * The layering of docs/DESIGN: applications and backends see the API ({@code io.locksmith}) and the SPI
 * ({@code io.locksmith.spi}); the shared client ({@code io.locksmith.internal}) is reachable only from inside
 * {@code locksmith-api}; packages do not depend on each other in circles.
 */
@AnalyzeClasses(packages = "io.locksmith", importOptions = ImportOption.DoNotIncludeTests.class)
class LayeringTest {

    /** The packages of locksmith-api. */
    private static final String[] API_MODULE = {"io.locksmith", "io.locksmith.spi..", "io.locksmith.internal..",
            "io.locksmith.mem..", "io.locksmith.migrate.."};
    private static final String[] BACKENDS = {"io.locksmith.redis..", "io.locksmith.zookeeper..",
            "io.locksmith.etcd.."};

    @ArchTest
    static final ArchRule backends_use_only_the_api_and_the_spi = noClasses()
            .that().resideInAnyPackage(BACKENDS)
            .should().dependOnClassesThat().resideInAnyPackage("io.locksmith.internal..", "io.locksmith.mem..",
                    "io.locksmith.migrate..", "io.locksmith.tck..", "io.locksmith.lockctl..",
                    "io.locksmith.micrometer..", "io.locksmith.spring..")
            .because("a backend is a store driver behind the SPI; everything shared lives in the client");

    @ArchTest
    static final ArchRule backends_do_not_use_each_other = slices().matching("io.locksmith.(redis|zookeeper|etcd)..")
            .should().notDependOnEachOther()
            .because("each backend is a separate artifact");

    @ArchTest
    static final ArchRule nothing_outside_the_api_module_uses_internal = noClasses()
            .that().resideOutsideOfPackages(API_MODULE)
            .should().dependOnClassesThat().resideInAPackage("io.locksmith.internal..")
            .because("io.locksmith.internal is not exported by module io.locksmith and may change in any release");

    @ArchTest
    static final ArchRule the_api_does_not_depend_on_stores_or_tools = noClasses()
            .that().resideInAnyPackage(API_MODULE)
            .should().dependOnClassesThat().resideInAnyPackage(BACKENDS)
            .orShould().dependOnClassesThat().resideInAnyPackage("io.locksmith.tck..", "io.locksmith.lockctl..",
                    "io.locksmith.micrometer..", "io.locksmith.spring..", "io.locksmith.shedlock..",
                    "io.locksmith.integration..");

    /**
     * No cycles between the published parts: locksmith-api, the TCK, each backend, Micrometer, the starter,
     * lockctl. Strict.
     */
    @ArchTest
    static final ArchRule no_cycles_between_modules = slices().matching("io.locksmith.(*)..")
            .should().beFreeOfCycles();

    /**
     * Every package its own slice, the root package io.locksmith included (which "io.locksmith.(**)" misses):
     * the API ({@code io.locksmith}) depends on no other package, the SPI on the API only, the shared client
     * ({@code io.locksmith.internal}) on both. The API reaches the shared client through a service
     * ({@code ClientBootstrap}), and a client given its own store factory is built through the SPI
     * ({@code ProviderClientBuilder}). The kit's entry point ({@code io.locksmith.tck}: {@code LockTck}, its rule list
     * and timing) and its rule groups ({@code io.locksmith.tck.kits}, which {@code LockTck} implements) are one slice:
     * one kit, split by concern for its readers, not two layers.
     */
    @ArchTest
    static final ArchRule no_package_cycles = slices().assignedFrom(new SliceAssignment() {
        @Override
        public SliceIdentifier getIdentifierOf(JavaClass javaClass) {
            String pkg = javaClass.getPackageName();
            if (pkg.equals("io.locksmith.tck.kits")) {
                pkg = "io.locksmith.tck";
            }
            return pkg.equals("io.locksmith") || pkg.startsWith("io.locksmith.")
                    ? SliceIdentifier.of(pkg) : SliceIdentifier.ignore();
        }

        @Override
        public String getDescription() {
            return "every io.locksmith package";
        }
    }).should().beFreeOfCycles();
}
