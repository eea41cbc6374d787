package io.locksmith.bench;

import com.zaxxer.hikari.HikariDataSource;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The JDBC row lock most teams on PostgreSQL use, as ShedLock's JDBC provider does it with the database's
 * time: one row per name, taken by {@code INSERT ... ON CONFLICT (name) DO UPDATE ... WHERE lock_until <= now()}
 * and given back by setting {@code lock_until} to {@code now()}. When taken, a retry every
 * {@code retryInterval} (ShedLock itself skips the task instead of waiting). No owner check on release, no
 * fencing, no renewal, no notification.
 */
final class ShedLockJdbcSubject extends JdbcPeerSubject {

    static final String TABLE = "bench_shedlock";

    private final Duration ttl;
    private final Duration retryInterval;

    ShedLockJdbcSubject(String label, String jdbcUrl, String user, Duration ttl, Duration retryInterval) {
        super(label, jdbcUrl, user);
        this.ttl = ttl;
        this.retryInterval = retryInterval;
    }

    @Override
    public Contender open(int threads) throws SQLException {
        HikariDataSource pool = pool(threads, "bench-shedlock", "CREATE TABLE IF NOT EXISTS " + TABLE
                + " (name varchar(255) PRIMARY KEY, lock_until timestamp NOT NULL, locked_at timestamp NOT NULL,"
                + " locked_by varchar(255) NOT NULL)");
        String lockSql = "INSERT INTO " + TABLE + " (name, lock_until, locked_at, locked_by)"
                + " VALUES (?, timezone('utc', now()) + ? * interval '1 millisecond', timezone('utc', now()), ?)"
                + " ON CONFLICT (name) DO UPDATE SET lock_until = excluded.lock_until, locked_at = excluded.locked_at,"
                + " locked_by = excluded.locked_by WHERE " + TABLE + ".lock_until <= timezone('utc', now())";
        String unlockSql = "UPDATE " + TABLE + " SET lock_until = timezone('utc', now()) WHERE name = ?";
        return new Contender() {
            @Override
            public Held acquire(String name, Duration maxWait) throws Exception {
                String by = UUID.randomUUID().toString();
                long deadline = System.nanoTime() + maxWait.toNanos();
                while (!tryLock(name, by)) {
                    if (System.nanoTime() + retryInterval.toNanos() > deadline) {
                        throw new TimeoutException(label + " did not acquire " + name + " within " + maxWait);
                    }
                    TimeUnit.NANOSECONDS.sleep(retryInterval.toNanos()); // the spin-retry being measured
                }
                return () -> {
                    try (Connection connection = pool.getConnection();
                         PreparedStatement unlock = connection.prepareStatement(unlockSql)) {
                        unlock.setString(1, name);
                        unlock.executeUpdate();
                    }
                };
            }

            private boolean tryLock(String name, String by) throws SQLException {
                try (Connection connection = pool.getConnection();
                     PreparedStatement lock = connection.prepareStatement(lockSql)) {
                    lock.setString(1, name);
                    lock.setLong(2, ttl.toMillis());
                    lock.setString(3, by);
                    return lock.executeUpdate() == 1;
                }
            }

            @Override
            public void close() {
                pool.close();
            }
        };
    }
}
