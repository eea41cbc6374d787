package io.locksmith.safety;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import javax.imageio.ImageIO;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class TimelineChartTest {

    @TempDir
    Path dir;

    /** Three clients taking turns, a victim killed holding the lock, a frozen one, a partition, stale writes. */
    private static Timeline sample() {
        List<Timeline.Holding> holdings = new ArrayList<>();
        long token = 1;
        for (long at = 0; at < 20_000; at += 10) {
            int client = (int) (at / 10 % 3);
            if (client == 0 && at >= 8_000 && at < 12_000) {
                continue; // client 0 cut off
            }
            holdings.add(new Timeline.Holding(client, at, at + 5, token++, false));
        }
        holdings.add(new Timeline.Holding(3, 2_000, 3_000, token++, false));
        holdings.add(new Timeline.Holding(3, 14_000, 15_000, token++, false));
        holdings.add(new Timeline.Holding(3, 15_000, 18_000, token - 1, true));
        return new Timeline("zookeeper-3", "safety-zookeeper-3-fbc392c8-64dd-402d-8b15-69062c5377f9-0", 8, 20_000,
                List.of("client 0 (proxied)", "client 1", "client 2", "victim JVMs"), holdings,
                List.of(new Timeline.Window(Fault.HOLDER_KILL, 3_000, 5_100),
                        new Timeline.Window(Fault.CLIENT_PARTITION, 8_000, 12_000),
                        new Timeline.Window(Fault.HOLDER_PAUSE, 15_000, 18_000)),
                List.of(new Timeline.StaleWrite(0, 12_010, 900, false), new Timeline.StaleWrite(3, 18_001, 5, false),
                        new Timeline.StaleWrite(1, 19_000, 7, true)));
    }

    @Test
    void drawsAPngOfTheChartSize() throws IOException {
        Path png = dir.resolve("zookeeper-3-timeline.png");

        TimelineChart.write(sample(), png);

        BufferedImage image = ImageIO.read(png.toFile());
        assertNotNull(image, png + " decodes as an image");
        assertEquals(TimelineChart.WIDTH, image.getWidth());
        assertEquals(TimelineChart.HEIGHT, image.getHeight());
    }

    @Test
    void theJsonReadsBackAsTheSameTimelineAndIsDrawnNextToItself() throws IOException {
        Timeline timeline = sample();
        Path json = dir.resolve("zookeeper-3-timeline.json");
        Files.writeString(json, timeline.toJson());

        assertEquals(timeline, Timeline.read(json));
        Path png = TimelineChart.write(json);
        assertEquals(dir.resolve("zookeeper-3-timeline.png").toAbsolutePath(), png);
        assertEquals(TimelineChart.WIDTH, ImageIO.read(png.toFile()).getWidth());
    }

    @Test
    void aMalformedTimelineFailsNamingTheFile() throws IOException {
        Path broken = dir.resolve("broken-timeline.json");
        Files.writeString(broken, "{\"rows\": [");
        Path report = dir.resolve("zookeeper-3.json");
        Files.writeString(report, "{\"deployment\": \"zookeeper-3\", \"faults\": []}");
        Path badHolding = dir.resolve("bad-holding-timeline.json");
        Files.writeString(badHolding, sample().toJson().replace("\"holdings\":[[", "\"holdings\":[[\"x\","));

        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> TimelineChart.write(broken));
        assertTrue(e.getMessage().contains(broken.toString()) && e.getMessage().contains("not JSON"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> TimelineChart.write(report));
        assertTrue(e.getMessage().contains(report.toString()) && e.getMessage().contains("no \"rows\""), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> TimelineChart.write(badHolding));
        assertTrue(e.getMessage().contains(badHolding.toString()) && e.getMessage().contains("holding"), e.getMessage());
    }
}
