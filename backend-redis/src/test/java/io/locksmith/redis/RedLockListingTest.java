package io.locksmith.redis;

import io.locksmith.LockClient;
import io.locksmith.tck.ListingTck;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

/** Listing held locks by prefix on RedLock over three redis-servers: a name counts where a majority holds it. */
class RedLockListingTest extends ListingTck {

    static final List<RedisServer> servers = new ArrayList<>();

    @BeforeAll
    static void startThree() {
        for (int i = 0; i < 3; i++) {
            servers.add(RedisServer.start());
        }
    }

    @AfterAll
    static void stopServers() {
        servers.forEach(RedisServer::close);
        servers.clear();
    }

    @Override
    protected LockClient newClient() {
        return LockClient.open("redlock://" + servers.stream().map(RedisServer::address)
                .collect(Collectors.joining(",")));
    }
}
