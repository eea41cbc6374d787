package io.locksmith.postgres;

import com.zaxxer.hikari.HikariDataSource;
import io.locksmith.LockInfo;
import io.locksmith.LockStoreException;
import io.locksmith.spi.AcquireRequest;
import io.locksmith.Capability;
import io.locksmith.spi.Grant;
import io.locksmith.spi.HolderCodec;
import io.locksmith.spi.LockProvider;
import io.locksmith.spi.Owner;
import io.locksmith.spi.Registry;
import io.locksmith.spi.RenewRequest;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * Locks in a PostgreSQL table: one row per held name, written by single atomic statements.
 *
 * <ul>
 * <li>Expiry is computed and compared by the database clock, {@code clock_timestamp()}, never by a client's.
 *     Not {@code now()}: that is the start of the transaction, and an acquire that first waited for another
 *     session's row lock would compute its expiry, and judge the old holder's, from a moment already past.</li>
 * <li>Acquire is one {@code INSERT ... ON CONFLICT DO UPDATE ... WHERE} that takes a free name or a row whose
 *     lease ran out, and returns the fencing token drawn from a sequence. The sequence never goes back, also
 *     when rows are deleted, so tokens strictly increase per name (and across names).</li>
 * <li>Renew and release compare the owner id (unique per holding) and, for renew, that the lease has not run
 *     out. All of a client's leases are renewed in one {@code UPDATE ... FROM unnest(...)}.</li>
 * <li>Release and the periodic clean-up of expired rows {@code NOTIFY} the waiters; see {@link ReleaseListener}.
 *     Neither deletes the row: a name keeps its row once used (as Redis keeps a name's fencing counter), so
 *     every later acquire draws its token under the row lock.</li>
 * </ul>
 * Waiters are not queued in the store, so there is no fair order ({@link Capability#FAIR} is not declared).
 */
final class PostgresLockProvider implements LockProvider {

    private static final Logger LOG = LoggerFactory.getLogger(PostgresLockProvider.class);
    /** How long an abandoned acquire stays refused: far longer than a request can wait in a socket buffer. */
    static final Duration ABANDONED_MARKER = Duration.ofMinutes(10);
    private static final Executor SAME_THREAD = Runnable::run;

    private final HikariDataSource pool;
    private final PostgresSettings settings;
    private final PostgresSchema schema;
    private final String store;
    private final ScheduledExecutorService scheduler;
    private final ReleaseListener listener;
    private final int timeoutMillis;

    private final String acquireSql;
    private final String renewSql;
    private final String renewAllSql;
    private final String releaseSql;
    private final String releaseAbandonedSql;
    private final String inspectSql;
    private final String listSql;
    private final String cleanupSql;

    /** The server asks this role for the password the client has (see {@link #capabilities()}). */
    private final boolean passwordRequired;
    /** Capability ACCESS_CONTROL, known once {@link #start()} read the table's privileges. */
    private volatile boolean accessControlled;

    PostgresLockProvider(HikariDataSource pool, PostgresSettings settings, ScheduledExecutorService scheduler,
                         ReleaseListener listener) {
        this(pool, settings, scheduler, listener, false);
    }

    /**
     * @param passwordRequired whether the server refused this role without its password (a probe at open): with
     *                         {@code trust} in pg_hba.conf anyone who reaches the server may log in as the role
     */
    PostgresLockProvider(HikariDataSource pool, PostgresSettings settings, ScheduledExecutorService scheduler,
                         ReleaseListener listener, boolean passwordRequired) {
        this.passwordRequired = passwordRequired;
        this.pool = pool;
        this.settings = settings;
        this.schema = new PostgresSchema(settings.schema());
        this.store = settings.describe();
        this.scheduler = scheduler;
        this.listener = listener;
        this.timeoutMillis = (int) Math.min(Integer.MAX_VALUE, settings.timeout().toMillis());
        String locks = schema.locks();
        String micros = " * interval '1 microsecond'";
        // Parameters: name, owner id, holder, TTL in microseconds, owner id, name.
        this.acquireSql = "WITH attempt AS ("
                + " INSERT INTO " + locks + " AS l (name, owner_id, holder, token, expires_at)"
                + " SELECT ?, ?, ?, nextval('" + schema.fence() + "'), clock_timestamp() + ?" + micros
                + " WHERE NOT EXISTS (SELECT 1 FROM " + schema.abandoned() + " a WHERE a.owner_id = ?)"
                + " ON CONFLICT (name) DO UPDATE SET owner_id = excluded.owner_id, holder = excluded.holder,"
                // The same holding asking again (a retry after a lost answer) keeps its token. Anyone else draws
                // it here, under the row lock, after the previous holder's statement committed: a value drawn
                // before (in the VALUES) could be lower than the token of a holding that came and went while
                // this statement waited, so it is only used for a name's first row.
                + " token = CASE WHEN l.owner_id = excluded.owner_id THEN l.token"
                + " ELSE nextval('" + schema.fence() + "') END,"
                + " expires_at = excluded.expires_at"
                + " WHERE l.owner_id = excluded.owner_id OR l.expires_at <= clock_timestamp()"
                + " RETURNING token)"
                + " SELECT token, NULL::bigint FROM attempt"
                + " UNION ALL"
                + " SELECT NULL, (extract(epoch FROM expires_at - clock_timestamp()) * 1000000)::bigint FROM " + locks
                + " WHERE name = ? AND expires_at > clock_timestamp() AND NOT EXISTS (SELECT 1 FROM attempt)";
        this.renewSql = "UPDATE " + locks + " SET expires_at = clock_timestamp() + ?" + micros
                + " WHERE name = ? AND owner_id = ? AND expires_at > clock_timestamp()";
        this.renewAllSql = "UPDATE " + locks + " AS l SET expires_at = clock_timestamp() + r.ttl" + micros
                + " FROM unnest(?::text[], ?::text[], ?::bigint[]) AS r(name, owner_id, ttl)"
                + " WHERE l.name = r.name AND l.owner_id = r.owner_id AND l.expires_at > clock_timestamp()"
                + " RETURNING l.owner_id";
        // A row is never deleted: a free name keeps its row, so that every later acquire of it goes through the
        // ON CONFLICT path and draws its token under the row lock (see above).
        String free = " SET owner_id = '', holder = '', expires_at = '-infinity'";
        this.releaseSql = "WITH gone AS (UPDATE " + locks + free
                + " WHERE name = ? AND owner_id = ? AND expires_at > clock_timestamp() RETURNING name)"
                + " SELECT pg_notify(?, name) FROM gone";
        this.releaseAbandonedSql = "WITH mark AS (INSERT INTO " + schema.abandoned() + " (owner_id, expires_at)"
                + " VALUES (?, clock_timestamp() + ?" + micros + ")"
                + " ON CONFLICT (owner_id) DO UPDATE SET expires_at = excluded.expires_at),"
                + " gone AS (UPDATE " + locks + free + " WHERE name = ? AND owner_id = ? RETURNING name)"
                + " SELECT pg_notify(?, name) FROM gone";
        this.inspectSql = "SELECT holder, token, (extract(epoch FROM expires_at - clock_timestamp()) * 1000000)::bigint"
                + " FROM " + locks + " WHERE name = ? AND expires_at > clock_timestamp()";
        this.listSql = "SELECT name, holder, token, (extract(epoch FROM expires_at - clock_timestamp()) * 1000000)::bigint"
                + " FROM " + locks + " WHERE starts_with(name, ?) AND expires_at > clock_timestamp() ORDER BY name";
        this.cleanupSql = "WITH gone AS (UPDATE " + locks + free
                + " WHERE expires_at <= clock_timestamp() AND expires_at > '-infinity' RETURNING name),"
                + " marks AS (DELETE FROM " + schema.abandoned() + " WHERE expires_at <= clock_timestamp()),"
                + " records AS (DELETE FROM " + schema.registry() + " WHERE expires_at <= clock_timestamp())"
                + " SELECT pg_notify(?, name) FROM gone";
    }

    /**
     * Creates or checks the schema, and starts the listening connection and the clean-up.
     *
     * @throws io.locksmith.LockConfigurationException if the schema is missing or unusable, or the primary streams
     *                                                 to asynchronous standbys without {@code allowAsyncStandby=true},
     *                                                 saying how to fix it
     * @throws LockStoreException                      if the database cannot be reached
     */
    void start() {
        // Idempotent, so tried again when the pool's connection turns out dead (SQLState class 08: a server that
        // restarted or a standby promoted since the pool opened it; the pool drops such a connection when it fails).
        for (int attempt = 1; ; attempt++) {
            try {
                call(null, "prepare the lock table", connection -> {
                    if (settings.createSchema()) {
                        schema.create(connection, store);
                    }
                    schema.verify(connection, store);
                    PostgresStandbys.check(connection, store, settings.allowAsyncStandby());
                    accessControlled = passwordRequired && publicHasNoRights(connection);
                    return null;
                });
                break;
            } catch (LockStoreException e) {
                if (attempt >= 3 || !isDeadConnection(e)) {
                    throw e;
                }
                // Every pooled connection opened before the server restarted is dead too: the next attempt must get a
                // new one, not the next dead one (the pool holds up to pool=N of them).
                com.zaxxer.hikari.HikariPoolMXBean connections = pool.getHikariPoolMXBean();
                if (connections != null) {
                    connections.softEvictConnections();
                }
            }
        }
        listener.start();
        long period = settings.cleanup().toMillis();
        // Jittered, so that clients started together do not clean up together.
        scheduler.scheduleWithFixedDelay(this::cleanUp, period / 2 + ThreadLocalRandom.current().nextLong(period / 2 + 1),
                period, TimeUnit.MILLISECONDS);
    }

    /** Whether {@code failure} came from a connection that was closed or broken (SQLState class 08). */
    private static boolean isDeadConnection(Throwable failure) {
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            if (cause instanceof java.sql.SQLException sql && sql.getSQLState() != null && sql.getSQLState().startsWith("08")) {
                return true;
            }
        }
        return false;
    }

    // ---------------------------------------------------------------- acquire

    @Override
    public Optional<Grant> tryAcquire(AcquireRequest request) {
        String name = request.name();
        Owner owner = request.owner();
        long[] remainingMicros = {-1};
        Optional<Grant> grant = call(name, "acquire", connection -> {
            try (PreparedStatement statement = connection.prepareStatement(acquireSql)) {
                statement.setString(1, name);
                statement.setString(2, owner.id());
                statement.setString(3, HolderCodec.encode(owner.holder()));
                statement.setLong(4, micros(request.ttl()));
                statement.setString(5, owner.id());
                statement.setString(6, name);
                try (ResultSet rows = statement.executeQuery()) {
                    if (!rows.next()) {
                        return Optional.empty();
                    }
                    long token = rows.getLong(1);
                    if (!rows.wasNull()) {
                        return Optional.of(new Grant(name, owner, token, request.ttl()));
                    }
                    remainingMicros[0] = rows.getLong(2);
                    return Optional.empty();
                }
            }
        });
        if (grant.isEmpty() && remainingMicros[0] >= 0) {
            listener.wakeAt(name, TimeUnit.MICROSECONDS.toNanos(remainingMicros[0]) + TimeUnit.MILLISECONDS.toNanos(1));
        }
        return grant;
    }

    // ---------------------------------------------------------------- renew and release

    @Override
    public boolean renew(Grant grant, Duration ttl) {
        return call(grant.name(), "renew", connection -> {
            try (PreparedStatement statement = connection.prepareStatement(renewSql)) {
                statement.setLong(1, micros(ttl));
                statement.setString(2, grant.name());
                statement.setString(3, grant.owner().id());
                return statement.executeUpdate() == 1;
            }
        });
    }

    /** One statement for every lease of the batch. */
    @Override
    public List<Boolean> renewAll(List<RenewRequest> requests) {
        if (requests.isEmpty()) {
            return List.of();
        }
        String[] names = new String[requests.size()];
        String[] owners = new String[requests.size()];
        Long[] ttls = new Long[requests.size()];
        for (int i = 0; i < requests.size(); i++) {
            names[i] = requests.get(i).grant().name();
            owners[i] = requests.get(i).grant().owner().id();
            ttls[i] = micros(requests.get(i).ttl());
        }
        Set<String> renewed = call(requests.size() == 1 ? names[0] : null, "renew " + requests.size() + " lock(s)",
                connection -> {
                    try (PreparedStatement statement = connection.prepareStatement(renewAllSql)) {
                        Array nameArray = connection.createArrayOf("text", names);
                        Array ownerArray = connection.createArrayOf("text", owners);
                        Array ttlArray = connection.createArrayOf("bigint", ttls);
                        statement.setArray(1, nameArray);
                        statement.setArray(2, ownerArray);
                        statement.setArray(3, ttlArray);
                        Set<String> found = new HashSet<>();
                        try (ResultSet rows = statement.executeQuery()) {
                            while (rows.next()) {
                                found.add(rows.getString(1));
                            }
                        }
                        return found;
                    }
                });
        List<Boolean> results = new ArrayList<>(requests.size());
        for (String owner : owners) {
            results.add(renewed.contains(owner));
        }
        return results;
    }

    @Override
    public boolean release(Grant grant) {
        return call(grant.name(), "release", connection -> {
            try (PreparedStatement statement = connection.prepareStatement(releaseSql)) {
                statement.setString(1, grant.name());
                statement.setString(2, grant.owner().id());
                statement.setString(3, schema.channel());
                try (ResultSet rows = statement.executeQuery()) {
                    return rows.next();
                }
            }
        });
    }

    /**
     * Frees the owner's row if the attempt took it, and marks the attempt abandoned so that a copy of it still
     * on its way (a slow network, a paused server) is refused when it arrives, instead of leaving a lock nobody
     * thinks it holds.
     */
    @Override
    public void releaseAmbiguous(String name, Owner owner) {
        call(name, "clean up after an acquire with an unknown outcome", connection -> {
            try (PreparedStatement statement = connection.prepareStatement(releaseAbandonedSql)) {
                statement.setString(1, owner.id());
                statement.setLong(2, micros(ABANDONED_MARKER));
                statement.setString(3, name);
                statement.setString(4, owner.id());
                statement.setString(5, schema.channel());
                statement.execute();
                return null;
            }
        });
    }

    /** Marks expired rows free, announcing each name to the waiters of every client; deletes old markers and records. */
    private void cleanUp() {
        try {
            int cleaned = call(null, "clean up expired locks", connection -> {
                try (PreparedStatement statement = connection.prepareStatement(cleanupSql)) {
                    statement.setString(1, schema.channel());
                    int rows = 0;
                    try (ResultSet gone = statement.executeQuery()) {
                        while (gone.next()) {
                            rows++;
                        }
                    }
                    return rows;
                }
            });
            if (cleaned > 0) {
                LOG.debug("deleted {} expired lock row(s) on {}", cleaned, store);
            }
        } catch (RuntimeException e) {
            LOG.debug("cleaning up expired locks on {} failed; the next round tries again", store, e);
        }
    }

    // ---------------------------------------------------------------- inspect and the rest

    @Override
    public Optional<LockInfo> inspect(String name) {
        return call(name, "inspect", connection -> {
            try (PreparedStatement statement = connection.prepareStatement(inspectSql)) {
                statement.setString(1, name);
                try (ResultSet rows = statement.executeQuery()) {
                    if (!rows.next()) {
                        return Optional.empty();
                    }
                    return Optional.of(new LockInfo(name, HolderCodec.decode(rows.getString(1)), rows.getLong(2),
                            Duration.ofNanos(TimeUnit.MICROSECONDS.toNanos(Math.max(0, rows.getLong(3)))), List.of()));
                }
            }
        });
    }

    /** One query: the rows under the prefix whose lease has not run out by the server's clock. */
    @Override
    public List<LockInfo> list(String prefix) {
        return call(null, "list", connection -> {
            try (PreparedStatement statement = connection.prepareStatement(listSql)) {
                statement.setString(1, prefix);
                List<LockInfo> held = new ArrayList<>();
                try (ResultSet rows = statement.executeQuery()) {
                    while (rows.next()) {
                        held.add(new LockInfo(rows.getString(1), HolderCodec.decode(rows.getString(2)), rows.getLong(3),
                                Duration.ofNanos(TimeUnit.MICROSECONDS.toNanos(Math.max(0, rows.getLong(4)))),
                                List.of()));
                    }
                }
                // ORDER BY sorts by the database's collation; the contract is Java's String order.
                held.sort(Comparator.comparing(LockInfo::lockName));
                return held;
            }
        });
    }

    /**
     * FENCING, RELEASE_NOTIFICATION and BATCH_RENEW; and ACCESS_CONTROL where the server asks this role for its password
     * and grants PUBLIC (every role) nothing on the lock table and the fence sequence: then a role without the grants
     * of docs/POSTGRES.md, a wrong password and no password are kept from the lock rows. Which other roles an
     * administrator grants them to is the deployment's part (docs/SECURITY.md).
     */
    @Override
    public Set<Capability> capabilities() {
        Set<Capability> capabilities = EnumSet.of(Capability.FENCING, Capability.RELEASE_NOTIFICATION,
                Capability.BATCH_RENEW);
        if (accessControlled) {
            capabilities.add(Capability.ACCESS_CONTROL);
        }
        return capabilities;
    }

    /** Whether PUBLIC has no right on the lock table and the fence sequence. */
    private boolean publicHasNoRights(Connection connection) throws SQLException {
        try (PreparedStatement statement = connection.prepareStatement("SELECT has_table_privilege('public', ?,"
                + " 'SELECT,INSERT,UPDATE,DELETE,TRUNCATE') OR has_sequence_privilege('public', ?, 'USAGE,UPDATE')")) {
            statement.setString(1, schema.locks());
            statement.setString(2, schema.fence());
            try (ResultSet row = statement.executeQuery()) {
                return row.next() && !row.getBoolean(1);
            }
        }
    }

    /** PostgreSQL timestamps count microseconds: a TTL is rounded up to whole microseconds. */
    /**
     * The pool's size less one: each call holds a pooled connection, and the renewal batch, which the shared client
     * does not count, still finds one (the listening connection is outside the pool).
     */
    @Override
    public int maxConcurrentCalls() {
        return Math.max(1, settings.poolSize() - 1);
    }

    @Override
    public Duration effectiveTtl(Duration requested) {
        return Duration.ofNanos(TimeUnit.MICROSECONDS.toNanos(micros(requested)));
    }

    @Override
    public AutoCloseable subscribe(String name, Runnable onChange) {
        return listener.subscribe(name, onChange);
    }

    @Override
    public Optional<Registry> registry() {
        return Optional.of(new PostgresRegistry(this, schema));
    }

    @Override
    public String describe() {
        return store;
    }

    @Override
    public void close() {
        try {
            listener.close();
        } finally {
            scheduler.shutdownNow();
            pool.close();
        }
    }

    // ---------------------------------------------------------------- helpers

    interface SqlWork<T> {
        T run(Connection connection) throws SQLException;
    }

    /**
     * Runs {@code work} on a pooled connection whose socket reads time out after the URI's {@code timeout}, so a
     * server that stopped answering fails the call in time; the pool then drops the broken connection.
     *
     * @throws LockStoreException if the database fails or does not answer in time
     */
    <T> T call(String lockName, String what, SqlWork<T> work) {
        try (Connection connection = pool.getConnection()) {
            connection.setNetworkTimeout(SAME_THREAD, timeoutMillis);
            return work.run(connection);
        } catch (SQLException e) {
            SQLException refusedLogin = refusedLogin(e);
            if (refusedLogin != null) {
                // The pool could not open a session: say it is the login (a password rotated on the server but not
                // where this client reads it), not a bare "connection is not available".
                throw new LockStoreException(lockName, "failed to " + what + ": "
                        + PostgresLockProviderFactory.connectFailure(settings, refusedLogin) + " (" + e.getMessage()
                        + ")", e);
            }
            throw new LockStoreException(lockName, store + " failed to " + what + ": " + e.getMessage()
                    + (e.getSQLState() == null ? "" : " (SQLSTATE " + e.getSQLState() + ")"), e);
        }
    }

    /** The refused login (SQLSTATE class 28) among the causes of {@code failure}, or null. */
    private static SQLException refusedLogin(SQLException failure) {
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            if (cause instanceof SQLException sql && sql.getSQLState() != null && sql.getSQLState().startsWith("28")) {
                return sql;
            }
        }
        return null;
    }

    static long micros(Duration duration) {
        long micros = TimeUnit.NANOSECONDS.toMicros(duration.toNanos());
        return duration.toNanos() % 1000 == 0 ? Math.max(1, micros) : micros + 1;
    }

    /** Whether the listening connection is up (tests). */
    boolean isListening() {
        return listener.isListening();
    }

    PostgresSettings settings() {
        return settings;
    }

    PostgresSchema schema() {
        return schema;
    }

    @Override
    public String toString() {
        return "PostgresLockProvider[" + store + "]";
    }
}
