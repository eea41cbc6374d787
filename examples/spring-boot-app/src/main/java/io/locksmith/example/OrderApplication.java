package io.locksmith.example;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;

/**
 * An order service whose shipping is guarded by a distributed lock. The store is chosen in
 * {@code application.yml} only: {@code mem://} by default, Redis with the {@code redis} profile
 * ({@code --spring.profiles.active=redis --redis.port=6379}).
 */
@SpringBootApplication
public class OrderApplication {

    public static void main(String[] args) {
        SpringApplication.run(OrderApplication.class, args);
    }
}
