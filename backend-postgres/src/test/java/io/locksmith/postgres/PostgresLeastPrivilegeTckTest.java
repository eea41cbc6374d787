package io.locksmith.postgres;

import io.locksmith.Capability;
import io.locksmith.tck.StoreTck;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.EnumSet;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The store kit with every client logged in as a role that has only the grants docs/POSTGRES.md lists: an
 * administrator ran the doc's script once (the DDL and the GRANTs, read from the doc itself), and the role owns
 * nothing, may create nothing and may not delete a lock row. A statement of the backend that needs more than those
 * grants fails its rule here.
 */
class PostgresLeastPrivilegeTckTest extends StoreTck {

    private static final String SCHEMA = "least_privilege";
    private static final String ROLE = "locksmith_app";

    private static PostgresServer postgres;

    @BeforeAll
    static void startPostgres() {
        postgres = PostgresServer.start();
        postgres.execute("CREATE ROLE " + ROLE + " LOGIN");
        for (String statement : PostgresDocs.schemaScript(SCHEMA, ROLE)) {
            postgres.execute(statement);
        }
    }

    @AfterAll
    static void stopPostgres() {
        if (postgres != null) {
            postgres.close();
        }
    }

    @Override
    protected String storeUri() {
        // The default createSchema=true: the objects exist, so the client creates nothing and needs no CREATE right.
        return "postgres://" + ROLE + "@127.0.0.1:" + postgres.port() + "/postgres?schema=" + SCHEMA;
    }

    @Override
    protected void expireBehindClientsBack(String lockName) {
        postgres.expire(SCHEMA, lockName);
    }

    @Override
    protected Set<Capability> expectedCapabilities() {
        return EnumSet.of(Capability.FENCING, Capability.RELEASE_NOTIFICATION, Capability.BATCH_RENEW);
    }

    /** Guards the premise of this class: the kit did not pass because the role could do more than the doc grants. */
    @Test
    void theRoleHasOnlyTheDocumentedRights() throws SQLException {
        try (Connection connection = postgres.connect(); Statement statement = connection.createStatement();
             ResultSet row = statement.executeQuery("SELECT r.rolsuper, r.rolcreaterole, r.rolcreatedb,"
                     + " has_schema_privilege('" + ROLE + "', '" + SCHEMA + "', 'CREATE'),"
                     + " has_table_privilege('" + ROLE + "', '" + SCHEMA + ".locksmith_locks', 'DELETE'),"
                     + " has_table_privilege('" + ROLE + "', '" + SCHEMA + ".locksmith_locks', 'TRUNCATE'),"
                     + " has_sequence_privilege('" + ROLE + "', '" + SCHEMA + ".locksmith_fence', 'UPDATE'),"
                     + " (SELECT count(*) FROM pg_class c JOIN pg_roles o ON o.oid = c.relowner"
                     + "   WHERE o.rolname = '" + ROLE + "')"
                     + " FROM pg_roles r WHERE r.rolname = '" + ROLE + "'")) {
            row.next();
            for (int column = 1; column <= 7; column++) {
                assertEquals(false, row.getBoolean(column), "column " + column + " of the role's rights");
            }
            assertEquals(0, row.getLong(8), "objects the role owns");
        }
    }
}
