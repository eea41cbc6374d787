package io.locksmith.bench;

import com.zaxxer.hikari.HikariDataSource;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.TimeoutException;

/**
 * PostgreSQL's own session lock, {@code pg_advisory_lock(hashtext(name))}: the server queues the waiters and wakes the
 * next backend itself, so it is the floor for a lock in PostgreSQL. No TTL, no token, no loss signal: the lock is tied
 * to one pooled connection, held from the acquire to the release ({@code lock_timeout} bounds the wait). The lower
 * bound Locksmith's table lock is measured against, not a peer it must beat.
 */
final class AdvisoryLockSubject extends JdbcPeerSubject {

    private static final String TIMED_OUT = "55P03";

    AdvisoryLockSubject(String label, String jdbcUrl, String user) {
        super(label, jdbcUrl, user);
    }

    @Override
    public Contender open(int threads) throws SQLException {
        HikariDataSource pool = pool(threads, "bench-advisory-lock", null);
        return new Contender() {
            @Override
            public Held acquire(String name, Duration maxWait) throws Exception {
                Connection connection = pool.getConnection();
                try {
                    try (Statement timeout = connection.createStatement()) {
                        timeout.execute("SET lock_timeout = " + Math.max(1, maxWait.toMillis()));
                    }
                    try (PreparedStatement lock = connection.prepareStatement("SELECT pg_advisory_lock(hashtext(?))")) {
                        lock.setString(1, name);
                        lock.execute();
                    }
                } catch (SQLException e) {
                    connection.close();
                    if (TIMED_OUT.equals(e.getSQLState())) {
                        throw new TimeoutException(label + " did not acquire " + name + " within " + maxWait);
                    }
                    throw e;
                }
                return () -> {
                    try (connection; PreparedStatement unlock = connection.prepareStatement(
                            "SELECT pg_advisory_unlock(hashtext(?))")) {
                        unlock.setString(1, name);
                        unlock.execute();
                    }
                };
            }

            @Override
            public void close() {
                pool.close();
            }
        };
    }
}
