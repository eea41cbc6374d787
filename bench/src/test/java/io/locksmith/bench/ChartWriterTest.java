package io.locksmith.bench;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import javax.imageio.ImageIO;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ChartWriterTest {

    private static final byte[] PNG_SIGNATURE = {(byte) 0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n'};

    @TempDir
    Path dir;

    private Path sample() throws IOException {
        Path json = dir.resolve("sample.json");
        try (InputStream in = ChartWriterTest.class.getResourceAsStream("/charts/sample.json")) {
            assertNotNull(in, "test resource /charts/sample.json");
            Files.copy(in, json);
        }
        return json;
    }

    @Test
    void drawsEveryChartTheFileHasFiguresForAsPngsOfTheChartSizeNextToIt() throws IOException {
        List<Path> charts = ChartWriter.write(sample());

        assertEquals(List.of("sample-uncontended-redis.png", "sample-uncontended-etcd.png",
                        "sample-contended-redis.png", "sample-hot-lock-redis.png", "sample-uncontended-p50.png"),
                charts.stream().map(p -> p.getFileName().toString()).toList());
        for (Path chart : charts) {
            assertEquals(dir, chart.getParent());
            byte[] bytes = Files.readAllBytes(chart);
            assertArrayEquals(PNG_SIGNATURE, Arrays.copyOf(bytes, 8), chart + " starts as a PNG");
            BufferedImage image = ImageIO.read(chart.toFile());
            assertNotNull(image, chart + " decodes");
            assertEquals(ChartWriter.WIDTH, image.getWidth(), chart + " width");
            assertEquals(ChartWriter.HEIGHT, image.getHeight(), chart + " height");
        }
    }

    @Test
    void leavesOutFailedResultsAndMissingFigures() throws IOException {
        Path json = sample();
        List<ChartWriter.Row> rows = ChartWriter.rows(json, new com.fasterxml.jackson.databind.ObjectMapper()
                .readTree(json.toFile()));

        assertTrue(rows.stream().noneMatch(r -> r.subject().equals("Redisson RLock") && r.scenario().equals("uncontended")),
                "the failed result has no row");
        ChartWriter.Row contended = rows.stream().filter(r -> r.scenario().equals("contended")).findFirst().orElseThrow();
        assertTrue(!contended.metrics().containsKey("handoff_max_us"), "a null figure is left out");
    }

    @Test
    void aFileWithoutAnyChartableFigureGivesNoChart() throws IOException {
        Path json = dir.resolve("round-trips.json");
        Files.writeString(json, """
                {"environment": {}, "results": [{"scenario": "round_trip", "store": "redis", "subject": "read round trip",
                 "metrics": {"p50_us": 30.0}}]}""");

        assertEquals(List.of(), ChartWriter.write(json));
    }

    @Test
    void malformedJsonFailsNamingTheFile() throws IOException {
        Path json = dir.resolve("broken.json");
        Files.writeString(json, "{\"results\": [ {\"scenario\": ");

        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ChartWriter.write(json));
        assertTrue(e.getMessage().contains(json.toString()), e.getMessage());
        assertTrue(e.getMessage().contains("not JSON"), e.getMessage());
    }

    @Test
    void jsonThatIsNotBenchResultsFailsNamingTheFileAndWhatIsMissing() throws IOException {
        Path noResults = dir.resolve("other.json");
        Files.writeString(noResults, "{\"deployment\": \"redis-single\"}");
        Path noStore = dir.resolve("no-store.json");
        Files.writeString(noStore, "{\"results\": [{\"scenario\": \"uncontended\", \"subject\": \"x\"}]}");

        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ChartWriter.write(noResults));
        assertTrue(e.getMessage().contains(noResults.toString()) && e.getMessage().contains("\"results\""), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> ChartWriter.write(noStore));
        assertTrue(e.getMessage().contains(noStore.toString()) && e.getMessage().contains("result 0 has no \"store\""),
                e.getMessage());
        try (var files = Files.list(dir)) {
            assertTrue(files.noneMatch(p -> p.toString().endsWith(".png")), "nothing drawn from a bad file");
        }
    }

    @Test
    void aMissingFileFailsNamingIt() {
        Path json = dir.resolve("absent.json");

        NoSuchFileException e = assertThrows(NoSuchFileException.class, () -> ChartWriter.write(json));
        assertTrue(e.getMessage().contains(json.toString()), e.getMessage());
    }
}
