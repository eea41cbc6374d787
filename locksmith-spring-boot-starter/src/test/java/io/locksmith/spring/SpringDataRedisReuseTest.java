package io.locksmith.spring;

import io.locksmith.Lease;
import io.locksmith.LockClient;
import io.locksmith.LockConfigurationException;
import io.locksmith.tck.server.ServerProcess;
import io.locksmith.tck.server.StoreServers;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.mock.env.MockEnvironment;

import java.time.Duration;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * An application on Spring Data Redis, configured only with {@code spring.data.redis.*}: without {@code locksmith.uri}
 * the starter locks on that Redis (through Lettuce, Boot's default client, or Jedis when {@code client-type=jedis});
 * with a {@code locksmith.uri} that names another Redis the startup fails, saying so; the translation of every
 * Spring Data Redis deployment (single node, URL, Sentinel, Cluster, TLS, credentials) into a Locksmith URI.
 */
class SpringDataRedisReuseTest {

    private static ServerProcess redis;
    private static ServerProcess otherRedis;

    @BeforeAll
    static void startRedis() {
        redis = StoreServers.redis();
        otherRedis = StoreServers.redis();
    }

    @AfterAll
    static void stopRedis() {
        redis.close();
        otherRedis.close();
    }

    /** Boot's Redis auto-configuration (the application's RedisTemplate) and the starter, as in an application. */
    private static ApplicationContextRunner application() {
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, LocksmithAutoConfiguration.class));
    }

    @ParameterizedTest
    @ValueSource(strings = {"lettuce", "jedis"})
    void anApplicationConfiguredOnlyForSpringDataRedisLocksOnItsRedis(String clientType) {
        String name = "order:" + UUID.randomUUID();
        application().withPropertyValues("spring.data.redis.host=127.0.0.1", "spring.data.redis.port=" + redis.port(),
                        "spring.data.redis.database=3", "spring.data.redis.client-type=" + clientType)
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    LockClient locks = context.getBean(LockClient.class);
                    assertThat(locks.describe()).contains("127.0.0.1:" + redis.port() + "/3").contains("(" + clientType + ")");
                    StringRedisTemplate data = context.getBean(StringRedisTemplate.class);
                    try (Lease lease = locks.lock(name).acquire(Duration.ofSeconds(5))) {
                        // The lock is in the application's own Redis and database, where its data is.
                        assertThat(data.opsForHash().get("locksmith:{" + name + "}", "owner")).isNotNull();
                        assertThat(lease.isHeld()).isTrue();
                    }
                    assertThat(data.hasKey("locksmith:{" + name + "}")).isFalse();
                });
    }

    @Test
    void aLocksmithUriNamingAnotherRedisThanSpringDataRedisFailsTheStartup() {
        application().withPropertyValues("spring.data.redis.host=127.0.0.1", "spring.data.redis.port=" + redis.port(),
                        "locksmith.uri=redis://127.0.0.1:" + otherRedis.port())
                .run(context -> assertThat(context).hasFailed().getFailure()
                        .rootCause().isInstanceOf(LockConfigurationException.class)
                        .hasMessageContaining("name different Redis servers")
                        .hasMessageContaining("127.0.0.1:" + otherRedis.port())
                        .hasMessageContaining("127.0.0.1:" + redis.port())
                        .hasMessageContaining("locksmith.spring-data-redis.enabled=false"));
    }

    @Test
    void aLocksmithUriOnTheSameRedisOrAnotherStoreOrOptedOutStarts() {
        String sameServer = "redis://localhost:" + redis.port() + "/0";
        application().withPropertyValues("spring.data.redis.host=127.0.0.1", "spring.data.redis.port=" + redis.port(),
                        "locksmith.uri=" + sameServer)
                .run(context -> assertThat(context).hasNotFailed());
        application().withPropertyValues("spring.data.redis.host=127.0.0.1", "spring.data.redis.port=" + redis.port(),
                        "locksmith.uri=mem://separate")
                .run(context -> assertThat(context).hasNotFailed());
        application().withPropertyValues("spring.data.redis.host=127.0.0.1", "spring.data.redis.port=" + redis.port(),
                        "locksmith.uri=redis://127.0.0.1:" + otherRedis.port(), "locksmith.spring-data-redis.enabled=false")
                .run(context -> assertThat(context).hasNotFailed());
    }

    @Test
    void anotherDatabaseOfTheSameServerIsAnotherStore() {
        assertThatThrownBy(() -> SpringDataRedisUri.requireSameServers("redis://127.0.0.1:6379/1",
                "redis://127.0.0.1:6379/0?client=lettuce"))
                .isInstanceOf(LockConfigurationException.class).hasMessageContaining("different Redis servers");
    }

    @Test
    void everySpringDataRedisDeploymentBecomesALocksmithUri() {
        assertThat(uri(new MockEnvironment())).isEqualTo("redis://localhost:6379/0?client=lettuce");
        assertThat(uri(new MockEnvironment().withProperty("spring.data.redis.host", "cache.internal")
                .withProperty("spring.data.redis.port", "6380").withProperty("spring.data.redis.username", "app")
                .withProperty("spring.data.redis.password", "p@ss word").withProperty("spring.data.redis.ssl.enabled", "true")
                .withProperty("spring.data.redis.timeout", "500ms").withProperty("spring.data.redis.client-type", "jedis")))
                .isEqualTo("rediss://app:p%40ss%20word@cache.internal:6380/0?timeout=500ms&client=jedis");
        assertThat(uri(new MockEnvironment().withProperty("spring.data.redis.url", "rediss://:secret@h:7000/2")
                .withProperty("spring.data.redis.host", "ignored")))
                .isEqualTo("rediss://:secret@h:7000/2?client=lettuce");
        assertThat(uri(new MockEnvironment().withProperty("spring.data.redis.sentinel.master", "mymaster")
                .withProperty("spring.data.redis.sentinel.nodes", "s1:26379, s2:26379")
                .withProperty("spring.data.redis.sentinel.password", "sentinel-secret")
                .withProperty("spring.data.redis.database", "1")))
                .isEqualTo("redis-sentinel://s1:26379,s2:26379/mymaster/1?sentinelPassword=sentinel-secret&client=lettuce");
        assertThat(uri(new MockEnvironment().withProperty("spring.data.redis.cluster.nodes", "n1:7000,n2:7001")
                .withProperty("spring.data.redis.password", "pw")))
                .isEqualTo("redis-cluster://:pw@n1:7000,n2:7001?client=lettuce");
    }

    @Test
    void whatALocksmithUriCannotSayIsRefusedByName() {
        assertThatThrownBy(() -> uri(new MockEnvironment().withProperty("spring.data.redis.ssl.bundle", "corporate")))
                .isInstanceOf(LockConfigurationException.class).hasMessageContaining("spring.data.redis.ssl.bundle");
        assertThatThrownBy(() -> uri(new MockEnvironment().withProperty("spring.data.redis.sentinel.master", "m")))
                .isInstanceOf(LockConfigurationException.class).hasMessageContaining("spring.data.redis.sentinel.nodes");
        assertThatThrownBy(() -> uri(new MockEnvironment().withProperty("spring.data.redis.url", "http://h:1")))
                .isInstanceOf(LockConfigurationException.class).hasMessageContaining("not a redis://");
    }

    private static String uri(MockEnvironment environment) {
        return SpringDataRedisUri.from(environment, SpringDataRedisReuseTest.class.getClassLoader()).orElseThrow();
    }
}
