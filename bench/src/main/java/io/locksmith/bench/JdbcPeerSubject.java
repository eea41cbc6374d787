package io.locksmith.bench;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * What the PostgreSQL peers share (the ShedLock-style row lock, Spring Integration's registry, the advisory lock): a
 * label, the server's JDBC URL and user, and a HikariCP pool sized like Locksmith's (at least 8, one per thread beyond
 * that), with the peer's table created on it first.
 */
abstract class JdbcPeerSubject implements Subject {

    protected final String label;
    private final String jdbcUrl;
    private final String user;

    JdbcPeerSubject(String label, String jdbcUrl, String user) {
        this.label = label;
        this.jdbcUrl = jdbcUrl;
        this.user = user;
    }

    @Override
    public final String label() {
        return label;
    }

    @Override
    public final Store store() {
        return Store.POSTGRES;
    }

    @Override
    public final boolean isLocksmith() {
        return false;
    }

    /**
     * A pool for {@code threads} callers, with {@code ddl} run on it first when not null.
     *
     * @throws SQLException if the table cannot be created (the pool is closed then)
     */
    protected final HikariDataSource pool(int threads, String poolName, String ddl) throws SQLException {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(jdbcUrl);
        config.setUsername(user);
        config.setMaximumPoolSize(Math.max(8, threads));
        config.setPoolName(poolName);
        HikariDataSource pool = new HikariDataSource(config);
        if (ddl != null) {
            try (Connection connection = pool.getConnection(); Statement statement = connection.createStatement()) {
                statement.execute(ddl);
            } catch (SQLException e) {
                pool.close();
                throw e;
            }
        }
        return pool;
    }
}
