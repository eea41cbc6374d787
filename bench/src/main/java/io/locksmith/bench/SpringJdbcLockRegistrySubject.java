package io.locksmith.bench;

import com.zaxxer.hikari.HikariDataSource;
import org.springframework.integration.jdbc.lock.DefaultLockRepository;
import org.springframework.integration.jdbc.lock.JdbcLockRegistry;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;

import java.sql.SQLException;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.Lock;

/**
 * Spring Integration's {@code JdbcLockRegistry} over its {@code DefaultLockRepository} and its own {@code INT_LOCK}
 * table (the DDL of its {@code schema-postgresql.sql}), as a Spring application on PostgreSQL uses it: one registry
 * per client (process), {@code tryLock(maxWait)}; a waiter polls the table every 100 ms (its default
 * {@code idleBetweenTries}), and the threads of one registry queue on a local {@code ReentrantLock} first.
 */
final class SpringJdbcLockRegistrySubject extends JdbcPeerSubject {

    private final Duration ttl;

    SpringJdbcLockRegistrySubject(String label, String jdbcUrl, String user, Duration ttl) {
        super(label, jdbcUrl, user);
        this.ttl = ttl;
    }

    @Override
    public Contender open(int threads) throws SQLException {
        HikariDataSource pool = pool(threads, "bench-spring-jdbc-lock", "CREATE TABLE IF NOT EXISTS INT_LOCK (LOCK_KEY"
                + " CHAR(36) NOT NULL, REGION VARCHAR(100) NOT NULL, CLIENT_ID CHAR(36), CREATED_DATE TIMESTAMP NOT NULL,"
                + " EXPIRED_AFTER TIMESTAMP NOT NULL, constraint INT_LOCK_PK primary key (LOCK_KEY, REGION))");
        DefaultLockRepository repository = new DefaultLockRepository(pool);
        repository.setTransactionManager(new DataSourceTransactionManager(pool));
        repository.afterPropertiesSet();
        repository.afterSingletonsInstantiated();
        JdbcLockRegistry registry = new JdbcLockRegistry(repository, ttl);
        return new Contender() {
            @Override
            public Held acquire(String name, Duration maxWait) throws Exception {
                Lock lock = registry.obtain(name);
                if (!lock.tryLock(maxWait.toNanos(), TimeUnit.NANOSECONDS)) {
                    throw new TimeoutException(label + " did not acquire " + name + " within " + maxWait);
                }
                return lock::unlock;
            }

            @Override
            public void close() {
                pool.close();
            }
        };
    }
}
