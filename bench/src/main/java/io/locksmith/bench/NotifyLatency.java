package io.locksmith.bench;

import org.postgresql.PGConnection;
import org.postgresql.PGNotification;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Properties;

/**
 * How long PostgreSQL takes to deliver a {@code NOTIFY}: one session sends {@code pg_notify} (autocommit), another,
 * listening and otherwise idle, waits for it; measured from the start of the sending statement to the listener's
 * receipt, and the sending statement alone, over many rounds 2 ms apart. {@code listeners - 1} further sessions
 * listen on another channel, as the other clients of a database do (PostgreSQL signals every listening session of
 * the database). What bounds a handoff announced by {@code NOTIFY} (issue 35 item 3, branch {@code pgfifo}). Not
 * part of the bench's tables.
 *
 * <pre>java -cp bench/target/locksmith-bench.jar io.locksmith.bench.NotifyLatency jdbc:postgresql://127.0.0.1:5432/postgres USER [rounds] [listeners] [poll|block]</pre>
 *
 * <p>{@code poll} checks for the notification without blocking, in a loop ({@code getNotifications()}); {@code block}
 * waits on the socket ({@code getNotifications(1000)}), as the backend's listening thread does.
 */
public final class NotifyLatency {

    private NotifyLatency() {
    }

    public static void main(String[] args) throws SQLException, InterruptedException {
        String url = args[0];
        Properties properties = new Properties();
        properties.setProperty("user", args[1]);
        int rounds = args.length > 2 ? Integer.parseInt(args[2]) : 2000;
        int listeners = args.length > 3 ? Integer.parseInt(args[3]) : 1;
        boolean poll = args.length > 4 && args[4].equals("poll");
        List<Connection> connections = new ArrayList<>();
        try {
            for (int i = 0; i < listeners - 1; i++) {
                Connection other = DriverManager.getConnection(url, properties);
                connections.add(other);
                execute(other, "LISTEN bench_notify_other");
            }
            Connection listen = DriverManager.getConnection(url, properties);
            connections.add(listen);
            Connection send = DriverManager.getConnection(url, properties);
            connections.add(send);
            execute(listen, "LISTEN bench_notify");
            PGConnection listening = listen.unwrap(PGConnection.class);
            long[] statement = new long[rounds];
            long[] delivered = new long[rounds];
            for (int round = 0; round < rounds; round++) {
                long start = System.nanoTime();
                execute(send, "SELECT pg_notify('bench_notify', '" + round + "')");
                long sent = System.nanoTime();
                PGNotification[] got;
                do {
                    got = poll ? listening.getNotifications() : listening.getNotifications(1000);
                } while (got == null || got.length == 0);
                delivered[round] = System.nanoTime() - start;
                statement[round] = sent - start;
                for (Connection other : connections.subList(0, listeners - 1)) {
                    other.unwrap(PGConnection.class).getNotifications(); // drain what the other sessions were sent
                }
                Thread.sleep(2);
            }
            Arrays.sort(statement);
            Arrays.sort(delivered);
            System.out.printf("%d listening session(s), %s, %d rounds: the pg_notify statement p50 %d µs p90 %d µs;"
                            + " from its start to the listener's receipt p50 %d µs p90 %d µs%n", listeners,
                    poll ? "polled" : "blocking", rounds, statement[rounds / 2] / 1000, statement[rounds * 9 / 10] / 1000,
                    delivered[rounds / 2] / 1000, delivered[rounds * 9 / 10] / 1000);
        } finally {
            for (Connection connection : connections) {
                connection.close();
            }
        }
    }

    private static void execute(Connection connection, String sql) throws SQLException {
        try (Statement statement = connection.createStatement()) {
            statement.execute(sql);
        }
    }
}
