package io.locksmith.postgres;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.locksmith.LockStoreException;
import io.locksmith.spi.LockProvider;
import io.locksmith.spi.LockProviderFactory;
import io.locksmith.spi.LockUri;
import io.locksmith.spi.ProviderContext;

import java.sql.Connection;
import java.sql.DriverManager;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;

/**
 * {@code postgres://[user[:password]@]host[:port][,host[:port]...]/database[?schema=public&pool=4&timeout=5s
 * &createSchema=true&cleanup=30s]} (also {@code postgresql://}): locks in a PostgreSQL table through the official
 * JDBC driver and a small HikariCP pool, plus one listening connection per client. See {@code docs/POSTGRES.md}
 * for the table, the clock, the notifications and what PostgreSQL guarantees.
 */
public final class PostgresLockProviderFactory implements LockProviderFactory {

    @Override
    public Set<String> schemes() {
        return Set.of("postgres", "postgresql");
    }

    /** Parses the settings as {@link #create} does, without connecting. */
    @Override
    public boolean validate(LockUri uri) {
        PostgresSettings.from(uri);
        return true;
    }

    @Override
    public LockProvider create(LockUri uri, ProviderContext context) {
        PostgresSettings settings = PostgresSettings.from(uri);
        String id = context.clientId().substring(0, Math.min(8, context.clientId().length()));
        Properties properties = connectionProperties(settings);
        checkReachable(settings, properties);
        HikariDataSource pool = pool(settings, properties, id);
        ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor(runnable -> {
            Thread thread = new Thread(runnable, "locksmith-postgres-" + id);
            thread.setDaemon(true);
            return thread;
        });
        PostgresSchema schema = new PostgresSchema(settings.schema());
        ReleaseListener listener = new ReleaseListener(() -> {
            Connection connection = DriverManager.getConnection(settings.jdbcUrl(), withCurrentPassword(settings,
                    properties));
            connection.setNetworkTimeout(Runnable::run, (int) Math.min(Integer.MAX_VALUE, settings.timeout().toMillis()));
            return connection;
        }, schema.channel(), settings.describe(), scheduler, "locksmith-postgres-listen-" + id);
        boolean passwordRequired = settings.password().isPresent() && refusesWithoutPassword(settings, properties);
        return LockProviderFactory.closeOnFailure(new PostgresLockProvider(pool, settings, scheduler, listener,
                passwordRequired), PostgresLockProvider::start);
    }

    /**
     * Whether the server refuses this role without its password (one login attempt without it): with {@code trust}
     * in pg_hba.conf anyone who reaches the server logs in as any role, and no grant keeps them from the lock rows.
     * A failure of another kind than a refused login tells nothing, and promises nothing.
     */
    static boolean refusesWithoutPassword(PostgresSettings settings, Properties properties) {
        Properties withoutPassword = new Properties();
        withoutPassword.putAll(properties);
        withoutPassword.remove("password");
        try (Connection ignored = DriverManager.getConnection(settings.jdbcUrl(), withoutPassword)) {
            return false;
        } catch (java.sql.SQLException refused) {
            // 28P01 wrong password, 28000 no pg_hba.conf entry; the driver's 08004 when the server asks for a password
            // it does not have
            String state = refused.getSQLState();
            return state != null && (state.startsWith("28") || state.equals("08004"));
        }
    }

    /**
     * Opens and closes one session first, so that a refused login or a failed TLS handshake fails the start at once:
     * the pool would try again every second until {@code connectTimeout}, though such a failure does not go away.
     * An attempt that failed only after {@code connectTimeout} (a server that does not answer) fails the start too:
     * the pool would have had no time left to try again. Any other failure (a refused connection of a server not up
     * yet) is left to the pool's retries.
     *
     * @throws LockStoreException if the server refuses the login, the TLS handshake fails or the attempt timed out
     */
    /**
     * Why the first session could not be opened, naming the store (never the password) and, for a refused login or
     * a failed TLS handshake, what to check: "cannot be reached" would send the reader to the network.
     */
    static String connectFailure(PostgresSettings settings, Throwable failure) {
        String store = settings.describe();
        String message = failure.getMessage();
        if (failure instanceof java.sql.SQLException sql && sql.getSQLState() != null
                && sql.getSQLState().startsWith("28")) {
            // 28P01 invalid password, 28000 invalid authorization (no pg_hba.conf entry, e.g. TLS required)
            String refused = store + " refused the login" + settings.user().map(user -> " of role '" + user + "'")
                    .orElse("") + " (SQLSTATE " + sql.getSQLState() + "): " + message;
            if (message != null && message.contains("certificate")) {
                // pg_hba.conf's clientcert (or the cert method): the server wants a client certificate over TLS.
                return refused + ". The server asks for a client certificate over TLS: " + settings.sslCert()
                        .map(cert -> "sslcert=" + cert + " must be signed by an authority in the server's ssl_ca_file"
                                + " and, with clientcert=verify-full, name the role as its common name")
                        .orElse("give sslcert and sslkey (and sslmode=verify-full)");
            }
            return refused + ". Check the password (from " + settings.passwordSource() + ") and the server's"
                    + " pg_hba.conf (a hostssl line needs sslmode=require or stronger)";
        }
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            if (cause instanceof javax.net.ssl.SSLException || cause instanceof java.security.cert.CertificateException) {
                return store + ": the TLS handshake failed: " + message + (settings.sslRootCert().isPresent()
                        ? ". Is the server's certificate signed by an authority in sslrootcert="
                        + settings.sslRootCert().get() + ", and does it name the host (sslmode=verify-full)?"
                        : ". Name the authority that signed the server's certificate with sslrootcert=<PEM file>")
                        + settings.sslCert().map(cert -> "; a server that asks for a client certificate refuses"
                        + " sslcert=" + cert + " unless an authority in its ssl_ca_file signed it").orElse("");
            }
        }
        return store + ": cannot open a session (connectTimeout " + settings.connectTimeout() + "): " + message;
    }

    /**
     * Credentials, TLS, and a server-side statement time-out equal to the URI's {@code timeout}: a statement stuck
     * behind a row lock ends on the server too, not only in the client.
     */
    static Properties connectionProperties(PostgresSettings settings) {
        Properties properties = new Properties();
        settings.user().ifPresent(user -> properties.setProperty("user", user));
        settings.password().ifPresent(password -> properties.setProperty("password", password));
        settings.sslMode().ifPresent(mode -> properties.setProperty("sslmode", mode));
        settings.sslRootCert().ifPresent(file -> properties.setProperty("sslrootcert", file));
        settings.sslCert().ifPresent(file -> properties.setProperty("sslcert", file));
        settings.sslKey().ifPresent(file -> properties.setProperty("sslkey", file));
        settings.pemKeyAlgorithm().ifPresent(algorithm -> properties.setProperty("pemKeyAlgorithm", algorithm));
        properties.setProperty("options", "-c statement_timeout=" + settings.timeout().toMillis()
                + " -c idle_in_transaction_session_timeout=" + Math.max(1000, settings.timeout().toMillis() * 2));
        return properties;
    }

    /**
     * Opens and closes one session, bounded by the URI's {@code connectTimeout} (the driver's connect and login
     * time-outs, whole seconds): a server that is not there fails the open at once (a refused connection) or at that
     * time-out (no answer), naming the store without its password. The pool's own start-up check is not used for
     * this: it tries again every second until its time-out and then sleeps once more, so a refused connection took
     * the whole connect time-out and a second more to fail (about 11 s by default).
     *
     * @throws LockStoreException if the session cannot be opened
     */
    static void checkReachable(PostgresSettings settings, Properties properties) {
        try (Connection ignored = DriverManager.getConnection(settings.jdbcUrl(), properties)) {
            // reachable, and the credentials are accepted
        } catch (java.sql.SQLException e) {
            throw new LockStoreException(connectFailure(settings, e), e);
        }
    }

    /**
     * {@code properties} with the password read now from {@code passwordFile}, if the URI has one: every new session
     * logs in with the file's current content, so a rotated secret is used without a restart.
     */
    static Properties withCurrentPassword(PostgresSettings settings, Properties properties) {
        if (settings.passwordFile().isEmpty()) {
            return properties;
        }
        Properties current = new Properties();
        current.putAll(properties);
        settings.currentPassword().ifPresent(password -> current.setProperty("password", password));
        return current;
    }

    /**
     * The pool. With {@code passwordFile}, each new session reads the file: HikariCP asks its configuration (the data
     * source itself) for the password every time it opens a session, and a session the server ended (a restart,
     * {@code pg_terminate_backend}) or that reached its maximum lifetime is replaced by a new one.
     */
    static HikariDataSource pool(PostgresSettings settings, Properties properties, String id) {
        HikariConfig config = poolConfig(settings, properties, id);
        if (settings.passwordFile().isEmpty()) {
            return new HikariDataSource(config);
        }
        return new HikariDataSource(config) {
            @Override
            public String getPassword() {
                return settings.currentPassword().orElseThrow();
            }
        };
    }

    static HikariConfig poolConfig(PostgresSettings settings, Properties properties, String id) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(settings.jdbcUrl());
        config.setDataSourceProperties(properties);
        settings.user().ifPresent(config::setUsername);
        settings.password().ifPresent(config::setPassword);
        config.setMaximumPoolSize(settings.poolSize());
        // A fixed-size pool: a new session costs the server a process, too slow to open while a call waits.
        config.setMinimumIdle(settings.poolSize());
        config.setConnectionTimeout(settings.timeout().toMillis());
        config.setValidationTimeout(Math.max(250, Math.min(settings.timeout().toMillis(), 5000)));
        config.setAutoCommit(true);
        config.setPoolName("locksmith-postgres-" + id);
        // The server was reached just before (checkReachable): the pool opens its sessions in the background, and
        // the schema check at start waits for one at most the URI's timeout.
        config.setInitializationFailTimeout(-1);
        return config;
    }
}
