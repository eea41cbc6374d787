package io.locksmith.bench;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import org.jfree.chart.ChartFactory;
import org.jfree.chart.ChartUtils;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.LegendItem;
import org.jfree.chart.LegendItemCollection;
import org.jfree.chart.axis.CategoryAxis;
import org.jfree.chart.axis.LogAxis;
import org.jfree.chart.axis.NumberAxis;
import org.jfree.chart.axis.AxisState;
import org.jfree.chart.axis.NumberTick;
import org.jfree.chart.axis.TickType;
import org.jfree.chart.axis.ValueTick;
import org.jfree.chart.block.BlockBorder;
import org.jfree.chart.labels.ItemLabelAnchor;
import org.jfree.chart.labels.ItemLabelPosition;
import org.jfree.chart.labels.StandardCategoryItemLabelGenerator;
import org.jfree.chart.plot.CategoryPlot;
import org.jfree.chart.plot.PlotOrientation;
import org.jfree.chart.renderer.category.BarRenderer;
import org.jfree.chart.renderer.category.LineAndShapeRenderer;
import org.jfree.chart.renderer.category.StandardBarPainter;
import org.jfree.chart.title.LegendTitle;
import org.jfree.chart.title.TextTitle;
import org.jfree.chart.ui.RectangleEdge;
import org.jfree.chart.ui.TextAnchor;
import org.jfree.data.category.DefaultCategoryDataset;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.Graphics2D;
import java.awt.Paint;
import java.awt.geom.Rectangle2D;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.text.DecimalFormat;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Draws a bench results file ({@code latest.json}, or any file the bench wrote with {@code --out}) as PNG charts of
 * {@value #WIDTH} x {@value #HEIGHT} next to it, named after it ({@code latest.json} gives {@code latest-*.png}):
 * <ul>
 * <li>{@code -uncontended-<store>.png}, {@code -contended-<store>.png}, {@code -async_overhead-<store>.png}: the
 *     latency figures the file holds (p50, p99, max; the handoff's for the contended scenario), one line per
 *     contender on one log-scale axis;</li>
 * <li>{@code -hot-lock-<store>.png}: acquisitions per second against the number of threads waiting for one lock;</li>
 * <li>{@code -uncontended-p50.png}: uncontended p50 per subject, the stores side by side, each with its write
 *     round trip.</li>
 * </ul>
 * A chart is drawn only where the file has its figures. The bench calls it after each run; to redraw the charts
 * of a committed file without running anything:
 * <pre>{@code
 * java -jar bench/target/locksmith-bench.jar --charts-from bench/results/latest.json [more.json ...]
 * }</pre>
 * The figures are what the file holds: medians over the runs, no histogram (the bench keeps its
 * HdrHistograms in memory only).
 */
final class ChartWriter {

    static final int WIDTH = 800;
    static final int HEIGHT = 450;

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Pattern HOT_METRIC = Pattern.compile("(w|vt)(\\d+)_acquisitions_per_s");
    private static final Color LOCKSMITH = new Color(0xD6, 0x4F, 0x1E);
    private static final Color PEER = new Color(0x3B, 0x6E, 0xA8);
    private static final Color BASELINE = new Color(0x5B, 0x9E, 0x4A);
    private static final Color ROUND_TRIP = new Color(0xA0, 0xA0, 0xA0);
    /** Colours of the other lines, after Locksmith's, in order. */
    private static final Color[] OTHERS = {PEER, BASELINE, new Color(0x8E, 0x5B, 0xA8), new Color(0xC9, 0x9A, 0x1E),
            new Color(0x4A, 0x9E, 0x9E), new Color(0x7A, 0x7A, 0x7A), new Color(0xB0, 0x5C, 0x8A)};

    /** The latency charts: scenario, the prefix of its metrics, title, what was timed. */
    private record LatencyChart(String scenario, String prefix, String title) {
    }

    private static final List<LatencyChart> LATENCY_CHARTS = List.of(
            new LatencyChart("uncontended", "", "Uncontended acquire + release"),
            new LatencyChart("contended", "handoff_",
                    "Contended handoff (start of a release to a waiting thread's acquire)"),
            new LatencyChart("async_overhead", "", "Uncontended acquire + release, blocking and async"));

    /** One measured result of the file. */
    record Row(String scenario, String store, String subject, boolean locksmith, boolean baseline,
               Map<String, Double> metrics) {
    }

    private ChartWriter() {
    }

    /** Draws the charts of every file named; prints what it wrote. Usage: {@code FILE.json ...}. */
    public static void main(String[] args) throws IOException {
        if (args.length == 0) {
            System.err.println("usage: --charts-from RESULTS.json [RESULTS.json ...]  (charts go next to each file)");
            System.exit(2);
        }
        for (String file : args) {
            for (Path chart : write(Path.of(file))) {
                System.out.println("wrote " + chart);
            }
        }
    }

    /**
     * Draws the charts of {@code json} next to it.
     *
     * @return the charts written, none if the file holds no figure a chart shows
     * @throws IOException              if the file cannot be read or a chart cannot be written
     * @throws IllegalArgumentException if the file is not a bench results file, naming it
     */
    static List<Path> write(Path json) throws IOException {
        Path dir = json.toAbsolutePath().getParent();
        String name = json.getFileName().toString();
        return write(json, dir, name.endsWith(".json") ? name.substring(0, name.length() - 5) : name);
    }

    /** Draws the charts of {@code json} into {@code dir}, each named {@code base-<chart>.png}. */
    static List<Path> write(Path json, Path dir, String base) throws IOException {
        if (System.getProperty("java.awt.headless") == null) {
            System.setProperty("java.awt.headless", "true"); // no display on a bench machine
        }
        JsonNode root = readTree(json);
        List<Row> rows = rows(json, root);
        String source = sourceLine(json, root);
        Map<String, JFreeChart> charts = new LinkedHashMap<>();
        for (LatencyChart latency : LATENCY_CHARTS) {
            for (String store : storesOf(rows, latency.scenario())) {
                JFreeChart chart = latencyChart(rows, latency, store);
                if (chart != null) {
                    charts.put(latency.scenario() + "-" + store, chart);
                }
            }
        }
        for (String store : storesOf(rows, "hot_lock")) {
            JFreeChart chart = hotLockChart(rows, store);
            if (chart != null) {
                charts.put("hot-lock-" + store, chart);
            }
        }
        JFreeChart overview = uncontendedP50Chart(rows);
        if (overview != null) {
            charts.put("uncontended-p50", overview);
        }
        Files.createDirectories(dir);
        List<Path> written = new ArrayList<>();
        for (Map.Entry<String, JFreeChart> entry : charts.entrySet()) {
            JFreeChart chart = entry.getValue();
            TextTitle subtitle = new TextTitle(source, new Font(Font.SANS_SERIF, Font.PLAIN, 10));
            subtitle.setPaint(Color.DARK_GRAY);
            chart.addSubtitle(subtitle);
            Path png = dir.resolve(base + "-" + entry.getKey() + ".png");
            ChartUtils.saveChartAsPNG(png.toFile(), chart, WIDTH, HEIGHT);
            written.add(png);
        }
        return written;
    }

    private static JsonNode readTree(Path json) throws IOException {
        String text;
        try {
            text = Files.readString(json);
        } catch (NoSuchFileException e) {
            throw new NoSuchFileException(json.toString(), null, "no bench results file to draw charts from");
        }
        try {
            return JSON.readTree(text);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException(json + " is not JSON: " + e.getOriginalMessage()
                    + " (line " + e.getLocation().getLineNr() + ")", e);
        }
    }

    /** The measured results of the file; failed ones (no metrics) are left out. */
    static List<Row> rows(Path json, JsonNode root) {
        JsonNode results = root == null ? null : root.get("results");
        if (results == null || !results.isArray()) {
            throw new IllegalArgumentException(json + " is not a bench results file: it has no \"results\" array");
        }
        List<Row> rows = new ArrayList<>();
        int index = 0;
        for (JsonNode result : results) {
            String scenario = text(json, result, "scenario", index);
            String store = text(json, result, "store", index);
            String subject = text(json, result, "subject", index);
            JsonNode metricsNode = result.get("metrics");
            index++;
            if (metricsNode == null || !metricsNode.isObject()) {
                continue; // a failed result: its reason is in the Markdown
            }
            Map<String, Double> metrics = new LinkedHashMap<>();
            metricsNode.fields().forEachRemaining(field -> {
                if (field.getValue().isNumber()) {
                    metrics.put(field.getKey(), field.getValue().doubleValue());
                }
            });
            rows.add(new Row(scenario, store, subject, result.path("locksmith").asBoolean(false),
                    result.path("baseline").asBoolean(false), metrics));
        }
        return rows;
    }

    private static String text(Path json, JsonNode result, String field, int index) {
        JsonNode value = result.get(field);
        if (value == null || !value.isTextual()) {
            throw new IllegalArgumentException(json + " is not a bench results file: result " + index + " has no \""
                    + field + "\"");
        }
        return value.asText();
    }

    private static String sourceLine(Path json, JsonNode root) {
        JsonNode environment = root.path("environment");
        String started = environment.path("started").asText("");
        String load = environment.path("load before (1/5/15 min)").asText("");
        String network = environment.path("network").asText("");
        int detail = network.indexOf(" (");
        return json.getFileName() + (started.isEmpty() ? "" : ", run " + started)
                + (load.isEmpty() ? "" : ", load before " + load) + "; " + environment.path("cpus").asText("?")
                + " cpus" + (network.isEmpty() ? "" : ", " + (detail > 0 ? network.substring(0, detail) : network));
    }

    private static Set<String> storesOf(List<Row> rows, String scenario) {
        Set<String> stores = new LinkedHashSet<>();
        rows.stream().filter(r -> r.scenario().equals(scenario)).forEach(r -> stores.add(r.store()));
        return stores;
    }

    /** p50, p99 and max of each subject of the scenario on the store, one line each on a log axis. */
    private static JFreeChart latencyChart(List<Row> rows, LatencyChart latency, String store) {
        DefaultCategoryDataset dataset = new DefaultCategoryDataset();
        List<Row> subjects = new ArrayList<>();
        for (Row row : rows) {
            if (row.scenario().equals(latency.scenario()) && row.store().equals(store)) {
                boolean any = false;
                for (String percentile : List.of("p50", "p99", "max")) {
                    Double value = row.metrics().get(latency.prefix() + percentile + "_us");
                    if (value != null && value > 0) {
                        dataset.addValue(value, row.subject(), percentile);
                        any = true;
                    }
                }
                if (any) {
                    subjects.add(row);
                }
            }
        }
        if (subjects.isEmpty()) {
            return null;
        }
        JFreeChart chart = ChartFactory.createLineChart(latency.title() + ", " + storeTitle(store), "percentile",
                "µs, log scale", dataset);
        CategoryPlot plot = chart.getCategoryPlot();
        plot.setRangeAxis(logAxis("µs, log scale"));
        LineAndShapeRenderer renderer = (LineAndShapeRenderer) plot.getRenderer();
        renderer.setDefaultShapesVisible(true);
        for (int i = 0; i < subjects.size(); i++) {
            renderer.setSeriesPaint(i, colourOf(subjects, i));
            renderer.setSeriesStroke(i, strokeOf(subjects.get(i)));
        }
        style(chart);
        return chart;
    }

    /**
     * Acquisitions/s against the waiters on one lock, one line per subject; the counts are categories (8, 100, 1,000
     * platform threads; the virtual threads' count named as such), so each point sits at a count the bench ran.
     */
    private static JFreeChart hotLockChart(List<Row> rows, String store) {
        Map<Integer, String> counts = new TreeMap<>();
        for (Row row : rows) {
            if (row.scenario().equals("hot_lock") && row.store().equals(store)) {
                for (String metric : row.metrics().keySet()) {
                    Matcher m = HOT_METRIC.matcher(metric);
                    if (m.matches()) {
                        int count = Integer.parseInt(m.group(2));
                        counts.put(count, String.format(Locale.ROOT, "%,d", count)
                                + (m.group(1).equals("vt") ? " virtual" : ""));
                    }
                }
            }
        }
        DefaultCategoryDataset dataset = new DefaultCategoryDataset();
        List<Row> subjects = new ArrayList<>();
        for (Row row : rows) {
            if (!row.scenario().equals("hot_lock") || !row.store().equals(store)) {
                continue;
            }
            boolean any = false;
            for (Map.Entry<String, Double> metric : row.metrics().entrySet()) {
                Matcher m = HOT_METRIC.matcher(metric.getKey());
                if (m.matches()) {
                    any = true;
                }
            }
            if (!any) {
                continue;
            }
            counts.forEach((count, label) -> {
                String prefix = label.endsWith(" virtual") ? "vt" : "w";
                dataset.addValue(row.metrics().get(prefix + count + "_acquisitions_per_s"), row.subject(), label);
            });
            subjects.add(row);
        }
        if (subjects.isEmpty()) {
            return null;
        }
        JFreeChart chart = ChartFactory.createLineChart("Hot lock: acquisitions/s by waiters on one lock, "
                + storeTitle(store), "threads waiting for the lock (platform threads unless named virtual)",
                "acquisitions/s", dataset);
        CategoryPlot plot = chart.getCategoryPlot();
        ((NumberAxis) plot.getRangeAxis()).setAutoRangeIncludesZero(true);
        LineAndShapeRenderer renderer = (LineAndShapeRenderer) plot.getRenderer();
        renderer.setDefaultShapesVisible(true);
        for (int i = 0; i < subjects.size(); i++) {
            renderer.setSeriesPaint(i, colourOf(subjects, i));
            renderer.setSeriesStroke(i, strokeOf(subjects.get(i)));
        }
        style(chart);
        return chart;
    }

    /** Uncontended p50 of every subject, grouped by store, each store with its write round trip; log axis. */
    private static JFreeChart uncontendedP50Chart(List<Row> rows) {
        DefaultCategoryDataset dataset = new DefaultCategoryDataset();
        List<Paint> paints = new ArrayList<>();
        for (String store : storesOf(rows, "uncontended")) {
            for (Row row : rows) {
                if (row.store().equals(store) && row.scenario().equals("round_trip")
                        && row.subject().equals("write round trip") && row.metrics().containsKey("p50_us")) {
                    dataset.addValue(row.metrics().get("p50_us"), "p50", storeTitle(store) + ": write round trip");
                    paints.add(ROUND_TRIP);
                }
            }
            for (Row row : rows) {
                if (row.store().equals(store) && row.scenario().equals("uncontended")
                        && row.metrics().get("p50_us") != null && row.metrics().get("p50_us") > 0) {
                    dataset.addValue(row.metrics().get("p50_us"), "p50", storeTitle(store) + ": " + row.subject());
                    paints.add(row.locksmith() ? LOCKSMITH : row.baseline() ? BASELINE : PEER);
                }
            }
        }
        if (paints.isEmpty()) {
            return null;
        }
        JFreeChart chart = ChartFactory.createBarChart("Uncontended acquire + release p50, stores side by side", null,
                "µs, log scale", dataset, PlotOrientation.HORIZONTAL, false, false, false);
        CategoryPlot plot = chart.getCategoryPlot();
        LogAxis micros = logAxis("µs, log scale");
        double least = Double.MAX_VALUE;
        double most = 0;
        for (int column = 0; column < dataset.getColumnCount(); column++) {
            double value = dataset.getValue(0, column).doubleValue();
            least = Math.min(least, value);
            most = Math.max(most, value);
        }
        // From the decade below the shortest bar, so that every bar has a length; room for the labels past the longest.
        micros.setRange(Math.pow(10, Math.floor(Math.log10(least))), most * 2.5);
        plot.setRangeAxis(micros);
        plot.setRangeAxisLocation(org.jfree.chart.axis.AxisLocation.BOTTOM_OR_RIGHT);
        CategoryAxis categories = plot.getDomainAxis();
        categories.setTickLabelFont(new Font(Font.SANS_SERIF, Font.PLAIN, 10));
        categories.setMaximumCategoryLabelWidthRatio(0.45f);
        categories.setCategoryMargin(0.15);
        BarRenderer renderer = new BarRenderer() {
            @Override
            public Paint getItemPaint(int row, int column) {
                return paints.get(column);
            }
        };
        renderer.setBarPainter(new StandardBarPainter());
        renderer.setShadowVisible(false);
        renderer.setDefaultItemLabelGenerator(new StandardCategoryItemLabelGenerator("{2}", new DecimalFormat("#,##0")));
        renderer.setDefaultItemLabelsVisible(true);
        renderer.setDefaultPositiveItemLabelPosition(new ItemLabelPosition(ItemLabelAnchor.OUTSIDE3,
                TextAnchor.CENTER_LEFT));
        renderer.setIncludeBaseInRange(false);
        renderer.setDefaultItemLabelFont(new Font(Font.SANS_SERIF, Font.PLAIN, 9));
        plot.setRenderer(renderer);
        LegendItemCollection legend = new LegendItemCollection();
        legend.add(new LegendItem("Locksmith", LOCKSMITH));
        legend.add(new LegendItem("other client", PEER));
        legend.add(new LegendItem("minimal lock (baseline)", BASELINE));
        legend.add(new LegendItem("store write round trip", ROUND_TRIP));
        plot.setFixedLegendItems(legend);
        LegendTitle title = new LegendTitle(plot);
        title.setPosition(RectangleEdge.BOTTOM);
        chart.addLegend(title);
        style(chart);
        return chart;
    }

    private static LogAxis logAxis(String label) {
        LogAxis axis = new OneTwoFiveAxis(label);
        axis.setBase(10);
        axis.setMinorTickMarksVisible(false);
        axis.setSmallestValue(0.1);
        axis.setAutoRangeMinimumSize(1);
        return axis;
    }

    /**
     * A log axis labelled at 1, 2 and 5 of each decade (100, 200, 500, 1,000): LogAxis's own ticks are whole decades or
     * powers such as 158.5, and a latency read off the chart should be a number people say.
     */
    private static final class OneTwoFiveAxis extends LogAxis {
        private static final DecimalFormat FORMAT = new DecimalFormat("#,##0.#");

        OneTwoFiveAxis(String label) {
            super(label);
        }

        @Override
        public List<ValueTick> refreshTicks(Graphics2D g2, AxisState state, Rectangle2D dataArea, RectangleEdge edge) {
            TextAnchor anchor = edge == RectangleEdge.LEFT ? TextAnchor.CENTER_RIGHT
                    : edge == RectangleEdge.RIGHT ? TextAnchor.CENTER_LEFT
                    : edge == RectangleEdge.TOP ? TextAnchor.BOTTOM_CENTER : TextAnchor.TOP_CENTER;
            List<ValueTick> ticks = new ArrayList<>();
            double lower = Math.max(getLowerBound(), 1e-9);
            double upper = getUpperBound();
            for (int exponent = (int) Math.floor(Math.log10(lower)); exponent <= Math.ceil(Math.log10(upper));
                 exponent++) {
                for (int mantissa : new int[] {1, 2, 5}) {
                    double value = mantissa * Math.pow(10, exponent);
                    if (value >= lower && value <= upper) {
                        ticks.add(new NumberTick(TickType.MAJOR, value, FORMAT.format(value), anchor, anchor, 0.0));
                    }
                }
            }
            return ticks;
        }
    }

    /** Locksmith's lines in its colour, the others in the rest of the palette, in order. */
    private static Paint colourOf(List<Row> subjects, int index) {
        int locksmithBefore = 0;
        for (int i = 0; i < index; i++) {
            if (subjects.get(i).locksmith()) {
                locksmithBefore++;
            }
        }
        Row row = subjects.get(index);
        if (row.locksmith()) {
            return locksmithBefore == 0 ? LOCKSMITH : locksmithBefore == 1 ? new Color(0xE8, 0x8A, 0x3C)
                    : new Color(0x9E, 0x2A, 0x12);
        }
        return OTHERS[(index - locksmithBefore) % OTHERS.length];
    }

    /** Locksmith solid and thick, the others thinner; baselines dashed. */
    private static BasicStroke strokeOf(Row row) {
        if (row.locksmith()) {
            return new BasicStroke(2.5f);
        }
        return row.baseline() ? new BasicStroke(1.5f, BasicStroke.CAP_BUTT, BasicStroke.JOIN_MITER, 10f,
                new float[] {6f, 4f}, 0f) : new BasicStroke(1.5f);
    }

    private static void style(JFreeChart chart) {
        chart.setBackgroundPaint(Color.WHITE);
        chart.getTitle().setFont(new Font(Font.SANS_SERIF, Font.BOLD, 14));
        chart.getPlot().setBackgroundPaint(Color.WHITE);
        chart.getPlot().setOutlineVisible(false);
        if (chart.getPlot() instanceof CategoryPlot plot) {
            plot.setRangeGridlinePaint(new Color(0xDD, 0xDD, 0xDD));
        }
        LegendTitle legend = chart.getLegend();
        if (legend != null) {
            legend.setFrame(BlockBorder.NONE);
            legend.setItemFont(new Font(Font.SANS_SERIF, Font.PLAIN, 10));
        }
    }

    private static String storeTitle(String store) {
        for (Store known : Store.values()) {
            if (known.name().toLowerCase(Locale.ROOT).equals(store)) {
                return known.title();
            }
        }
        return store;
    }
}
