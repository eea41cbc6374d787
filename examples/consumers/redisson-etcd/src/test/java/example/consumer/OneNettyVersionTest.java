package example.consumer;

import org.junit.jupiter.api.Test;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.util.Enumeration;
import java.util.Properties;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * With the BOM imported, Redisson (which asks for Netty 4.1) and jetcd (which needs 4.2) resolve to one Netty
 * version: checked on the class path Maven resolved for the tests, and on what Netty's own jars declare.
 */
class OneNettyVersionTest {

    /** A jar in a Maven repository layout: .../io/netty/ARTIFACT/VERSION/ARTIFACT-VERSION[-classifier].jar */
    private static final Pattern NETTY_JAR = Pattern.compile(".*/io/netty/([^/]+)/([^/]+)/[^/]+\\.jar");
    /** netty-tcnative is versioned on its own (2.0.x), like the other native add-ons. */
    private static final Set<String> SEPARATELY_VERSIONED = Set.of("netty-tcnative", "netty-tcnative-classes",
            "netty-tcnative-boringssl-static", "netty-jni-util");

    @Test
    void everyNettyJarOnTheClassPathHasTheSameVersion() {
        Map<String, String> versionByArtifact = new TreeMap<>();
        for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
            Matcher jar = NETTY_JAR.matcher(Path.of(entry).toAbsolutePath().toString().replace('\\', '/'));
            if (jar.matches() && !SEPARATELY_VERSIONED.contains(jar.group(1))) {
                versionByArtifact.put(jar.group(1), jar.group(2));
            }
        }
        assertFalse(versionByArtifact.isEmpty(), "no Netty on the class path: the test does not look where Maven"
                + " puts jars any more");
        assertEquals(1, new TreeSet<>(versionByArtifact.values()).size(),
                "Netty artifacts in more than one version: " + versionByArtifact);
        // Both clients bring Netty: the check is only worth something if both are really there.
        assertTrue(versionByArtifact.containsKey("netty-codec-http2"),
                "expected gRPC's (jetcd) Netty modules: " + versionByArtifact.keySet());
        assertTrue(versionByArtifact.containsKey("netty-resolver-dns"),
                "expected Redisson's Netty modules: " + versionByArtifact.keySet());
    }

    /** Every Netty jar writes its artifact and version here (what io.netty.util.Version reads). */
    @Test
    void nettysOwnVersionRecordsAgree() throws IOException {
        Map<String, String> declared = new TreeMap<>();
        Enumeration<URL> records = getClass().getClassLoader().getResources("META-INF/io.netty.versions.properties");
        while (records.hasMoreElements()) {
            Properties record = new Properties();
            try (InputStream in = records.nextElement().openStream()) {
                record.load(in);
            }
            for (String key : record.stringPropertyNames()) {
                if (key.endsWith(".version")) {
                    String artifact = key.substring(0, key.length() - ".version".length());
                    if (!SEPARATELY_VERSIONED.contains(artifact)) {
                        declared.put(artifact, record.getProperty(key));
                    }
                }
            }
        }
        assertFalse(declared.isEmpty(), "no META-INF/io.netty.versions.properties on the class path");
        assertEquals(1, new TreeSet<>(declared.values()).size(), "Netty jars declare different versions: " + declared);
    }
}
