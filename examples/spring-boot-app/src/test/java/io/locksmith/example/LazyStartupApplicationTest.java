package io.locksmith.example;

import io.locksmith.tck.server.ServerProcess;
import io.locksmith.tck.server.StoreServers;
import org.junit.jupiter.api.Test;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.env.Environment;

import java.net.http.HttpResponse;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * {@code locksmith.startup=lazy} against a real redis-server that is stopped when the application starts (a store
 * blip during a deploy): the application starts, health is DOWN and orders answer 503 at once; when the server
 * is back, health turns UP and orders ship, without a restart.
 */
class LazyStartupApplicationTest {

    @Test
    void startsWhileRedisIsDownAnswers503ThenRecoversWhenItIsBack() throws Exception {
        try (ServerProcess redis = StoreServers.redis()) {
            redis.kill();
            try (ConfigurableApplicationContext context = new SpringApplicationBuilder(OrderApplication.class)
                    .run("--server.port=0", "--spring.profiles.active=redis", "--redis.port=" + redis.port(),
                            "--locksmith.startup=lazy")) {
                String base = "http://127.0.0.1:" + context.getBean(Environment.class).getProperty("local.server.port");

                HttpResponse<String> health = OrderApplicationScenario.getResponse(base + "/actuator/health");
                assertThat(health.statusCode()).isEqualTo(503);
                assertThat(health.body()).contains("\"locksmith\":{").contains("\"DOWN\"")
                        .contains("has not answered since the application started");

                long start = System.nanoTime();
                HttpResponse<String> unavailable = OrderApplicationScenario.send(base + "/orders/5005/ship", 503);
                // At once, not after the 3 s lock wait.
                assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(3));
                assertThat(unavailable.headers().firstValue("Retry-After")).hasValue("1");
                assertThat(unavailable.body()).contains("\"title\":\"Lock store unavailable\"");

                redis.restart();
                await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(200)).until(() ->
                        OrderApplicationScenario.getResponse(base + "/actuator/health").statusCode() == 200);
                assertThat(OrderApplicationScenario.post(base + "/orders/5005/ship", 200))
                        .contains("\"lock\":\"order:5005\"").contains("\"accepted\":true");
            }
        }
    }
}
