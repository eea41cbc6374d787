package io.locksmith.postgres;

import io.locksmith.spi.Registry;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Types;
import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;

/**
 * Registry records in the {@code locksmith_registry} table. A record with a TTL expires by the database clock
 * ({@code clock_timestamp()}), like a lock; expired rows are filtered out when read and deleted by the clean-up.
 * Every statement runs on the primary in autocommit, so a read sees every write committed before it began, as
 * the migration phase guard needs.
 */
final class PostgresRegistry implements Registry {

    private final PostgresLockProvider provider;
    private final String putSql;
    private final String listSql;
    private final String removeSql;

    PostgresRegistry(PostgresLockProvider provider, PostgresSchema schema) {
        this.provider = provider;
        String table = schema.registry();
        this.putSql = "INSERT INTO " + table + " (key, value, expires_at)"
                + " VALUES (?, ?, clock_timestamp() + ? * interval '1 microsecond')"
                + " ON CONFLICT (key) DO UPDATE SET value = excluded.value, expires_at = excluded.expires_at";
        this.listSql = "SELECT key, value FROM " + table + " WHERE starts_with(key, ?)"
                + " AND (expires_at IS NULL OR expires_at > clock_timestamp())";
        this.removeSql = "DELETE FROM " + table + " WHERE key = ?";
    }

    @Override
    public void put(String key, String value, Duration ttl) {
        provider.call(null, "put a registry record", connection -> {
            try (PreparedStatement statement = connection.prepareStatement(putSql)) {
                statement.setString(1, key);
                statement.setString(2, value);
                if (ttl == null) {
                    statement.setNull(3, Types.BIGINT);
                } else {
                    statement.setLong(3, PostgresLockProvider.micros(ttl));
                }
                statement.executeUpdate();
                return null;
            }
        });
    }

    @Override
    public Map<String, String> list(String prefix) {
        return provider.call(null, "list registry records", connection -> {
            try (PreparedStatement statement = connection.prepareStatement(listSql)) {
                statement.setString(1, prefix);
                Map<String, String> records = new TreeMap<>();
                try (ResultSet rows = statement.executeQuery()) {
                    while (rows.next()) {
                        records.put(rows.getString(1), rows.getString(2));
                    }
                }
                return records;
            }
        });
    }

    @Override
    public void remove(String key) {
        provider.call(null, "remove a registry record", connection -> {
            try (PreparedStatement statement = connection.prepareStatement(removeSql)) {
                statement.setString(1, key);
                statement.executeUpdate();
                return null;
            }
        });
    }
}
