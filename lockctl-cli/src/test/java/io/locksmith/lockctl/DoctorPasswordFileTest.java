package io.locksmith.lockctl;

import io.locksmith.tck.server.ServerProcess;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** doctor reads {@code passwordFile} as the backends do: the user info is the user, the file the password. */
class DoctorPasswordFileTest {

    @Test
    void redisUserWithPasswordFileIsLoggedIn(@TempDir Path dir) throws Exception {
        try (ServerProcess redis = Servers.redis(dir)) {
            String password = "Doctor-pw-" + System.nanoTime();
            try (Jedis jedis = new Jedis("127.0.0.1", redis.port())) {
                jedis.aclSetUser("app", "on", ">" + password, "~*", "&*", "+@all");
                jedis.aclSetUser("default", "off");
            }
            Path file = dir.resolve("password");
            Files.writeString(file, password + "\n");
            String uri = "redis://app@127.0.0.1:" + redis.port() + "?passwordFile=" + file;
            Run run = Run.lockctl("doctor", "--uri", uri, "--read-only");

            assertEquals(ExitCode.OK, run.exitCode(), run.both());
            assertTrue(run.out().contains("redis 127.0.0.1:" + redis.port() + " round trip: PING median"), run.both());
            assertFalse(run.both().contains(password), run.both());

            Files.writeString(file, "Wrong-" + password);
            Run refused = Run.lockctl("doctor", "--uri", uri, "--read-only");
            assertEquals(ExitCode.CHECK_FAILED, refused.exitCode(), refused.both());
            assertTrue(refused.both().contains("WRONGPASS"), refused.both());
            assertFalse(refused.both().contains(password), refused.both());
        }
    }
}
