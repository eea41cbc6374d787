package example.springparent;

import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;

import javax.xml.parsers.DocumentBuilderFactory;
import java.io.File;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * On spring-boot-starter-parent, the store clients on the class path are the versions the Locksmith BOM pins
 * (read from the installed BOM), not Boot's: one Netty 4.2 release for every io.netty jar, and Locksmith's Jedis.
 */
class BomVersionsTest {

    @Test
    void nettyAndJedisAreTheVersionsTheLocksmithBomPins() throws Exception {
        Map<String, String> pins = bomProperties();
        assertThat(pins).containsKeys("netty.version", "jedis.version");

        Set<String> nettyVersions = io.netty.util.Version.identify().values().stream()
                .map(io.netty.util.Version::artifactVersion).collect(Collectors.toCollection(TreeSet::new));
        assertThat(nettyVersions).as("every io.netty artifact (jetcd needs 4.2)").containsExactly(pins.get("netty.version"));
        assertThat(jarOf(io.netty.channel.MultiThreadIoEventLoopGroup.class))
                .endsWith("-" + pins.get("netty.version") + ".jar");

        assertThat(jarOf(redis.clients.jedis.Jedis.class)).isEqualTo("jedis-" + pins.get("jedis.version") + ".jar");
    }

    private static String jarOf(Class<?> type) throws URISyntaxException {
        return Path.of(type.getProtectionDomain().getCodeSource().getLocation().toURI()).getFileName().toString();
    }

    private static Map<String, String> bomProperties() throws Exception {
        String pom = System.getProperty("locksmith.bom.pom");
        assertThat(pom).as("set by the surefire configuration").isNotBlank();
        Document document = DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(new File(pom));
        var properties = document.getElementsByTagName("properties").item(0).getChildNodes();
        Map<String, String> values = new java.util.HashMap<>();
        for (int i = 0; i < properties.getLength(); i++) {
            if (properties.item(i).getNodeType() == org.w3c.dom.Node.ELEMENT_NODE) {
                values.put(properties.item(i).getNodeName(), properties.item(i).getTextContent().strip());
            }
        }
        return values;
    }
}
