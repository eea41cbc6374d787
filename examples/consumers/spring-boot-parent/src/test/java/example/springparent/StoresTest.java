package example.springparent;

import io.locksmith.LockClient;
import io.locksmith.tck.server.ServerProcess;
import io.locksmith.tck.server.StoreServers;
import org.junit.jupiter.api.Test;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.env.Environment;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

/** The parent-based application on a real redis-server and a real etcd, changing only {@code locksmith.uri}. */
class StoresTest {

    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    @Test
    void deductsUnderTheLockOnRedis() throws Exception {
        try (ServerProcess redis = StoreServers.redis()) {
            runAndCheck("redis://127.0.0.1:" + redis.port());
        }
    }

    @Test
    void deductsUnderTheLockOnEtcd() throws Exception {
        try (ServerProcess etcd = StoreServers.etcd()) {
            // A generous connect bound: the first jetcd call loads gRPC, Vert.x and Netty, slow on a loaded machine.
            runAndCheck("etcd://127.0.0.1:" + etcd.port() + "?timeout=30s");
        }
    }

    private static void runAndCheck(String uri) throws Exception {
        try (ConfigurableApplicationContext context = new SpringApplicationBuilder(StockApplication.class)
                .run("--server.port=0", "--locksmith.uri=" + uri, "--locksmith.lease=2s",
                        // Nobody else holds the lock; the first calls load the store client's classes, which
                        // takes seconds on a loaded machine.
                        "--stock.lock-wait=30s")) {
            String base = "http://127.0.0.1:" + context.getBean(Environment.class).getProperty("local.server.port");
            assertThat(context.getBean(LockClient.class).describe()).startsWith(uri.substring(0, uri.indexOf(':')));
            String first = post(base + "/stock/A-1/deduct");
            String second = post(base + "/stock/A-1/deduct");
            assertThat(first).contains("\"lock\":\"stock:A-1\"").contains("\"accepted\":true");
            assertThat(second).contains("\"accepted\":true");
            String health = get(base + "/actuator/health");
            assertThat(health).contains("\"locksmith\":{").contains("\"status\":\"UP\"");
        }
    }

    private static String post(String url) throws Exception {
        HttpResponse<String> response = HTTP.send(HttpRequest.newBuilder(URI.create(url))
                .POST(HttpRequest.BodyPublishers.noBody()).timeout(Duration.ofSeconds(30)).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).as("POST %s: %s", url, response.body()).isEqualTo(200);
        return response.body();
    }

    private static String get(String url) throws Exception {
        HttpResponse<String> response = HTTP.send(HttpRequest.newBuilder(URI.create(url))
                .timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).as("GET %s: %s", url, response.body()).isEqualTo(200);
        return response.body();
    }
}
