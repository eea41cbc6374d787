package io.locksmith.example;

import io.locksmith.LockClient;
import io.locksmith.Lease;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.env.Environment;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The same checks for every store: start the application with some properties (nothing else changes), ship
 * orders through HTTP, and read the lock metrics and health from actuator.
 */
final class OrderApplicationScenario {

    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    private OrderApplicationScenario() {
    }

    /** Runs the application with {@code properties} (e.g. {@code --spring.profiles.active=redis}) and checks it. */
    static void runAndCheck(String expectedStore, String... properties) throws Exception {
        // The application's own 3 s wait: the busy-order check waits that long for its 409, and the concurrent
        // shipments (up to three waiters ahead) need far less, even on a loaded machine (630 ms seen on etcd).
        List<String> args = new ArrayList<>(List.of("--server.port=0"));
        args.addAll(List.of(properties));
        try (ConfigurableApplicationContext context = new SpringApplicationBuilder(OrderApplication.class)
                .run(args.toArray(String[]::new))) {
            String base = "http://127.0.0.1:" + context.getBean(Environment.class).getProperty("local.server.port");
            LockClient client = context.getBean(LockClient.class);
            assertThat(client.describe()).startsWith(expectedStore + "://");

            String first = post(base + "/orders/1001/ship", 200);
            assertThat(first).contains("\"lock\":\"order:1001\"").contains("\"accepted\":true");

            shipConcurrently(base, context.getBean(ShippingLedger.class));
            busyOrderIsAConflict(base, client);

            String acquire = get(base + "/actuator/metrics/locksmith.acquire");
            assertThat(acquire).contains("\"store\"").contains(expectedStore).contains("\"group\"").contains("order")
                    .contains("acquired").contains("timeout");
            assertThat(get(base + "/actuator/metrics/locksmith.hold")).contains("released");
            assertThat(get(base + "/actuator/metrics/locksmith.locks.held")).contains("\"value\":0");
            String health = get(base + "/actuator/health");
            assertThat(health).contains("\"locksmith\":{").contains("roundTripMs").contains(expectedStore + "://");
            assertThat(health).endsWith("\"status\":\"UP\"}").doesNotContain("\"DOWN\"");
        }
    }

    /** Eight concurrent shipments of one order: each gets a newer token, and the ledger never sees two at once. */
    private static void shipConcurrently(String base, ShippingLedger ledger) throws Exception {
        int before = ledger.shipments();
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            List<Future<String>> calls = new ArrayList<>();
            for (int i = 0; i < 8; i++) {
                calls.add(pool.submit(() -> post(base + "/orders/2002/ship", 200)));
            }
            for (Future<String> call : calls) {
                assertThat(call.get()).contains("\"accepted\":true");
            }
        } finally {
            pool.shutdownNow();
        }
        assertThat(ledger.overlaps()).isZero();
        assertThat(ledger.shipments() - before).isEqualTo(8);
    }

    /** Another instance holds the order for longer than the wait: a 409 problem with Retry-After. */
    private static void busyOrderIsAConflict(String base, LockClient client) throws Exception {
        String uri = client.describe().split(" ")[0];
        try (LockClient otherInstance = LockClient.open(uri);
             Lease held = otherInstance.lock("order:3003").acquire(Duration.ofSeconds(1))) {
            HttpResponse<String> busy = send(base + "/orders/3003/ship", 409);
            assertThat(busy.headers().firstValue("Retry-After")).hasValue("1");
            assertThat(busy.headers().firstValue("Content-Type")).hasValueSatisfying(
                    type -> assertThat(type).startsWith("application/problem+json"));
            assertThat(busy.body()).contains("\"status\":409").contains("\"title\":\"Resource busy\"");
        }
    }

    static String post(String url, int expectedStatus) throws IOException, InterruptedException {
        return send(url, expectedStatus).body();
    }

    /** POSTs to {@code url} and checks the status. */
    static HttpResponse<String> send(String url, int expectedStatus) throws IOException, InterruptedException {
        HttpResponse<String> response = HTTP.send(HttpRequest.newBuilder(URI.create(url))
                .POST(HttpRequest.BodyPublishers.noBody()).timeout(Duration.ofSeconds(20)).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).as("POST %s: %s", url, response.body()).isEqualTo(expectedStatus);
        return response;
    }

    /** GETs {@code url} whatever its status. */
    static HttpResponse<String> getResponse(String url) throws IOException, InterruptedException {
        return HTTP.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(20)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private static String get(String url) throws IOException, InterruptedException {
        HttpResponse<String> response = HTTP.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(20))
                .build(), HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).as("GET %s: %s", url, response.body()).isEqualTo(200);
        return response.body();
    }
}
