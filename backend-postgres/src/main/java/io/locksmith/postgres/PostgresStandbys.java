package io.locksmith.postgres;

import io.locksmith.LockConfigurationException;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Set;

/**
 * The start-up check of the primary's streaming standbys: a lock granted on a primary whose standbys are
 * asynchronous is lost if one of them is promoted before it received the grant, and the promoted standby can then
 * hand out a fencing token the old primary already gave. Such a primary is refused unless the URI says
 * {@code allowAsyncStandby=true}, as Redis Sentinel waits for a replica unless {@code waitReplicas=0} says not to.
 *
 * <p>The check reads what every role may read: the number of physical WAL senders (a {@code pg_stat_replication}
 * row whose session has no database; a logical one, a change-data-capture tool for example, has one and is never
 * promoted), {@code synchronous_standby_names} and this session's {@code synchronous_commit}. A commit is on a
 * standby before the client hears of it when a synchronous standby is named and {@code synchronous_commit} is
 * {@code remote_write}, {@code on} or {@code remote_apply}; with {@code local} or {@code off} it is not.
 * It runs once, at start: a standby attached later is {@code lockctl doctor}'s to report.
 */
final class PostgresStandbys {

    /** The values of {@code synchronous_commit} with which a commit does not wait for a synchronous standby. */
    private static final Set<String> NOT_WAITING = Set.of("off", "local");

    static final String QUERY = "SELECT (SELECT count(*) FROM pg_stat_replication r JOIN pg_stat_activity a"
            + " ON a.pid = r.pid WHERE a.datname IS NULL),"
            + " current_setting('synchronous_standby_names'), current_setting('synchronous_commit')";

    private PostgresStandbys() {
    }

    /**
     * Refuses a primary whose physical standbys do not confirm every commit, unless {@code allowAsync}.
     *
     * @param store for messages: the store's description, without credentials
     * @throws LockConfigurationException if the primary streams to a standby that is not synchronous for these
     *                                    sessions and {@code allowAsync} is false; the message says what to set
     * @throws SQLException               if the database fails
     */
    static void check(Connection connection, String store, boolean allowAsync) throws SQLException {
        if (allowAsync) {
            return;
        }
        long standbys;
        String names;
        String commit;
        try (Statement statement = connection.createStatement(); ResultSet row = statement.executeQuery(QUERY)) {
            row.next();
            standbys = row.getLong(1);
            names = row.getString(2).strip();
            commit = row.getString(3).strip();
        }
        if (standbys == 0) {
            return;
        }
        if (names.isEmpty() || NOT_WAITING.contains(commit)) {
            String why = names.isEmpty()
                    ? "no synchronous standby is named (synchronous_standby_names is empty)"
                    : "synchronous_commit is '" + commit + "' for these sessions, so a commit does not wait for the"
                            + " synchronous standby";
            throw new LockConfigurationException(store + " streams to " + standbys + " standby(s) asynchronously: "
                    + why + ". A promoted standby would lack the latest grants, so a lock could be granted a second"
                    + " time while its holder works, with a fencing token the old primary already gave. Set"
                    + " synchronous_standby_names (e.g. '*' or 'FIRST 1 (standby1, standby2)') and synchronous_commit"
                    + " to on or remote_apply on the server, or accept that loss with the URI parameter "
                    + PostgresSettings.PARAM_ALLOW_ASYNC_STANDBY + "=true (docs/POSTGRES.md, 'With a standby')");
        }
    }
}
