package io.locksmith.spring;

import io.locksmith.Lease;
import io.locksmith.LockClient;
import io.locksmith.spi.ProviderClientBuilder;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.test.web.servlet.MockMvc;
import org.springframework.test.web.servlet.setup.MockMvcBuilders;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.servlet.config.annotation.EnableWebMvc;

import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.post;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.content;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.header;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.jsonPath;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.status;

/** Lock failures reaching a Spring MVC controller become problem details, not 500s. */
class LockProblemDetailsTest {

    private final String store = "mem://web-" + UUID.randomUUID();
    private final SwitchableStore switchable = new SwitchableStore();
    private final WebApplicationContextRunner runner = new WebApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(LocksmithAutoConfiguration.class,
                    LocksmithWebMvcAutoConfiguration.class))
            .withUserConfiguration(Web.class)
            .withBean(LockClientBuilderCustomizer.class, () -> builder -> ProviderClientBuilder.of(builder).factory(switchable))
            .withPropertyValues("locksmith.uri=" + store, "locksmith.annotation.default-wait=100ms");

    static class Stock {
        @Locked(name = "'stock:' + #sku")
        public String deduct(String sku) {
            return "deducted " + sku;
        }
    }

    @RestController
    static class StockController {
        private final Stock stock;

        StockController(Stock stock) {
            this.stock = stock;
        }

        @PostMapping("/stock/{sku}/deduct")
        String deduct(@PathVariable("sku") String sku) {
            return stock.deduct(sku);
        }
    }

    @Configuration(proxyBeanMethods = false)
    @EnableWebMvc
    static class Web {
        @Bean
        Stock stock() {
            return new Stock();
        }

        @Bean
        StockController stockController(Stock stock) {
            return new StockController(stock);
        }
    }

    @Test
    void busyLockIsA409WithRetryAfterAndStoreErrorA503() {
        runner.run(context -> {
            MockMvc mvc = MockMvcBuilders.webAppContextSetup(context).build();
            mvc.perform(post("/stock/A/deduct")).andExpect(status().isOk());
            try (LockClient other = LockClient.open(store); Lease busy = other.lock("stock:A").acquire()) {
                mvc.perform(post("/stock/A/deduct")).andExpect(status().isConflict())
                        .andExpect(header().string("Retry-After", "1"))
                        .andExpect(content().contentTypeCompatibleWith("application/problem+json"))
                        .andExpect(jsonPath("$.status").value(409))
                        .andExpect(jsonPath("$.title").value("Resource busy"));
            }
            switchable.down();
            mvc.perform(post("/stock/A/deduct")).andExpect(status().isServiceUnavailable())
                    .andExpect(header().string("Retry-After", "1"))
                    .andExpect(content().contentTypeCompatibleWith("application/problem+json"))
                    .andExpect(jsonPath("$.title").value("Lock store unavailable"));
            switchable.up();
            // A known outage ends with the client's next probe (within 300 ms), not at the first call after the store
            // is back: calls until then fail fast.
            org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(5)).untilAsserted(
                    () -> mvc.perform(post("/stock/A/deduct")).andExpect(status().isOk()));
        });
    }

    @Test
    void statusAndRetryAfterAreConfigurable() {
        runner.withPropertyValues("locksmith.web.lock-timeout-status=503", "locksmith.web.retry-after=2500ms")
                .run(context -> {
                    MockMvc mvc = MockMvcBuilders.webAppContextSetup(context).build();
                    try (LockClient other = LockClient.open(store); Lease busy = other.lock("stock:B").acquire()) {
                        mvc.perform(post("/stock/B/deduct")).andExpect(status().isServiceUnavailable())
                                .andExpect(header().string("Retry-After", "3"));
                    }
                });
        runner.withPropertyValues("locksmith.web.lock-timeout-status=500").run(context ->
                assertThat(context).getFailure().hasStackTraceContaining("must be 409 or 503, was 500"));
    }

    @Test
    void canBeSwitchedOffAndIsAbsentOutsideWebApplications() {
        runner.withPropertyValues("locksmith.web.problem-details=false")
                .run(context -> assertThat(context).doesNotHaveBean(LockProblemDetails.class));
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(LocksmithAutoConfiguration.class,
                        LocksmithWebMvcAutoConfiguration.class))
                .withPropertyValues("locksmith.uri=" + store)
                .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(LockProblemDetails.class));
    }
}
