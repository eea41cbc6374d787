package io.locksmith.safety;

import org.jfree.chart.ChartUtils;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.LegendItem;
import org.jfree.chart.LegendItemCollection;
import org.jfree.chart.axis.NumberAxis;
import org.jfree.chart.axis.SymbolAxis;
import org.jfree.chart.block.BlockBorder;
import org.jfree.chart.plot.IntervalMarker;
import org.jfree.chart.plot.XYPlot;
import org.jfree.chart.renderer.xy.StandardXYBarPainter;
import org.jfree.chart.renderer.xy.XYBarRenderer;
import org.jfree.chart.renderer.xy.XYLineAndShapeRenderer;
import org.jfree.chart.title.LegendTitle;
import org.jfree.chart.title.TextTitle;
import org.jfree.chart.ui.Layer;
import org.jfree.chart.ui.RectangleEdge;
import org.jfree.chart.util.ShapeUtils;
import org.jfree.data.xy.XYIntervalSeries;
import org.jfree.data.xy.XYIntervalSeriesCollection;
import org.jfree.data.xy.XYSeries;
import org.jfree.data.xy.XYSeriesCollection;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.Shape;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Draws a {@link Timeline} as a PNG of {@value #WIDTH} x {@value #HEIGHT}, as Jepsen draws its timelines: a row per
 * client with a bar for each holding of the lock, the victim JVMs' holdings (hatched grey while frozen), the fault
 * windows shaded across every row, and each stale write marked where it came (a black cross when the fence rejected
 * it, a red one when it got through). Holdings closer together than half a pixel are drawn as one bar, and every bar
 * is at least a pixel wide: at this width a pixel is a few hundred milliseconds of a run and a holding a few.
 */
public final class TimelineChart {

    static final int WIDTH = 800;
    static final int HEIGHT = 450;
    /** The plot's width in pixels, about: what half a pixel is in time. */
    private static final int PLOT_PIXELS = 680;

    private static final Color HELD = new Color(0x3B, 0x6E, 0xA8);
    private static final Color FROZEN = new Color(0xB0, 0xB0, 0xB0);
    private static final Map<Fault, Color> FAULT_COLOURS = new EnumMap<>(Map.of(
            Fault.HOLDER_KILL, new Color(0xE0, 0x3C, 0x31),
            Fault.HOLDER_PAUSE, new Color(0xF0, 0xA0, 0x20),
            Fault.CLIENT_PARTITION, new Color(0x8E, 0x5B, 0xA8),
            Fault.LOST_REPLY, new Color(0x4A, 0x9E, 0x9E),
            Fault.NODE_KILL, new Color(0x7A, 0x5A, 0x3A),
            Fault.FAILOVER, new Color(0xC0, 0x40, 0x90)));

    private TimelineChart() {
    }

    /** Draws the timeline of each file named ({@code <report>-timeline.json}) next to it, as {@code .png}. */
    public static void main(String[] args) throws IOException {
        for (String file : args) {
            System.out.println("wrote " + write(Path.of(file)));
        }
    }

    /**
     * Draws the timeline {@code json} holds next to it ({@code x-timeline.json} gives {@code x-timeline.png}).
     *
     * @throws IllegalArgumentException if the file is not a timeline, naming it
     */
    static Path write(Path json) throws IOException {
        String name = json.getFileName().toString();
        Path png = json.toAbsolutePath().resolveSibling((name.endsWith(".json") ? name.substring(0, name.length() - 5)
                : name) + ".png");
        write(Timeline.read(json), png);
        return png;
    }

    /** Draws {@code timeline} into {@code png}. */
    public static void write(Timeline timeline, Path png) throws IOException {
        if (System.getProperty("java.awt.headless") == null) {
            System.setProperty("java.awt.headless", "true");
        }
        ChartUtils.saveChartAsPNG(png.toFile(), chart(timeline), WIDTH, HEIGHT);
    }

    static JFreeChart chart(Timeline timeline) {
        double seconds = Math.max(1, timeline.durationMillis()) / 1000.0;
        double pixel = seconds / PLOT_PIXELS;
        XYIntervalSeries held = new XYIntervalSeries("held");
        XYIntervalSeries frozen = new XYIntervalSeries("frozen");
        List<Timeline.Holding> sorted = new ArrayList<>(timeline.holdings());
        sorted.sort(Comparator.comparingInt(Timeline.Holding::row).thenComparing(Timeline.Holding::frozen)
                .thenComparingLong(Timeline.Holding::fromMillis));
        double barFrom = Double.NaN;
        double barTo = Double.NaN;
        Timeline.Holding bar = null;
        for (Timeline.Holding h : sorted) {
            double from = h.fromMillis() / 1000.0;
            double to = Math.max(h.toMillis() / 1000.0, from + pixel);
            if (bar != null && bar.row() == h.row() && bar.frozen() == h.frozen() && from - barTo < pixel / 2) {
                barTo = Math.max(barTo, to);
                continue;
            }
            if (bar != null) {
                add(bar.frozen() ? frozen : held, bar.row(), barFrom, barTo);
            }
            bar = h;
            barFrom = from;
            barTo = to;
        }
        if (bar != null) {
            add(bar.frozen() ? frozen : held, bar.row(), barFrom, barTo);
        }
        XYIntervalSeriesCollection holdings = new XYIntervalSeriesCollection();
        holdings.addSeries(held);
        holdings.addSeries(frozen);

        XYSeries rejected = new XYSeries("stale write rejected", false, true);
        XYSeries accepted = new XYSeries("stale write ACCEPTED", false, true);
        for (Timeline.StaleWrite w : timeline.staleWrites()) {
            (w.accepted() ? accepted : rejected).add(w.atMillis() / 1000.0, w.row());
        }
        XYSeriesCollection writes = new XYSeriesCollection();
        writes.addSeries(rejected);
        writes.addSeries(accepted);

        NumberAxis time = new NumberAxis("seconds since the run began");
        time.setRange(0, seconds);
        SymbolAxis rows = new SymbolAxis(null, timeline.rows().toArray(String[]::new));
        rows.setInverted(true);
        rows.setGridBandsVisible(false);
        rows.setTickLabelFont(new Font(Font.SANS_SERIF, Font.PLAIN, 11));

        XYBarRenderer bars = new XYBarRenderer();
        bars.setUseYInterval(true);
        bars.setBarPainter(new StandardXYBarPainter());
        bars.setShadowVisible(false);
        bars.setDrawBarOutline(false);
        bars.setSeriesPaint(0, HELD);
        bars.setSeriesPaint(1, FROZEN);

        XYLineAndShapeRenderer marks = new XYLineAndShapeRenderer(false, true);
        Shape cross = ShapeUtils.createDiagonalCross(5f, 1.2f);
        marks.setSeriesShape(0, cross);
        marks.setSeriesPaint(0, Color.BLACK);
        marks.setSeriesShape(1, ShapeUtils.createDiagonalCross(7f, 2f));
        marks.setSeriesPaint(1, Color.RED);

        XYPlot plot = new XYPlot(writes, time, rows, marks);
        plot.setDataset(1, holdings);
        plot.setRenderer(1, bars);
        plot.setBackgroundPaint(Color.WHITE);
        plot.setOutlineVisible(false);
        plot.setDomainGridlinePaint(new Color(0xDD, 0xDD, 0xDD));
        plot.setRangeGridlinesVisible(false);

        LegendItemCollection legend = new LegendItemCollection();
        legend.add(new LegendItem("holding", HELD));
        if (!frozen.isEmpty()) {
            legend.add(new LegendItem("frozen holder", FROZEN));
        }
        legend.add(new LegendItem("stale write rejected", null, null, null, cross, Color.BLACK));
        if (!accepted.isEmpty()) {
            legend.add(new LegendItem("stale write ACCEPTED", null, null, null, cross, Color.RED));
        }
        Map<Fault, Boolean> shown = new EnumMap<>(Fault.class);
        for (Timeline.Window w : timeline.faults()) {
            Color colour = FAULT_COLOURS.get(w.fault());
            double from = w.fromMillis() / 1000.0;
            double to = Math.max(w.toMillis() / 1000.0, from + pixel);
            IntervalMarker window = new IntervalMarker(from, to, new Color(colour.getRed(), colour.getGreen(),
                    colour.getBlue(), 60));
            window.setOutlinePaint(colour);
            window.setOutlineStroke(new BasicStroke(0.5f));
            plot.addDomainMarker(window, Layer.BACKGROUND);
            if (shown.put(w.fault(), true) == null) {
                legend.add(new LegendItem(w.fault().name().toLowerCase(Locale.ROOT).replace('_', ' '),
                        new Color(colour.getRed(), colour.getGreen(), colour.getBlue(), 120)));
            }
        }
        plot.setFixedLegendItems(legend);

        JFreeChart chart = new JFreeChart("Safety run: " + timeline.deployment() + ", holdings per client",
                new Font(Font.SANS_SERIF, Font.BOLD, 14), plot, false);
        chart.setBackgroundPaint(Color.WHITE);
        TextTitle subtitle = new TextTitle(String.format(Locale.ROOT, "one lock of %d (%s); %,d holdings, %d faults,"
                        + " %d stale writes (%d accepted); %.0f s", timeline.locks(), shortName(timeline.lockName()),
                timeline.holdings().size(), timeline.faults().size(), timeline.staleWrites().size(),
                accepted.getItemCount(), seconds), new Font(Font.SANS_SERIF, Font.PLAIN, 10));
        subtitle.setPaint(Color.DARK_GRAY);
        chart.addSubtitle(subtitle);
        LegendTitle legendTitle = new LegendTitle(plot);
        legendTitle.setPosition(RectangleEdge.BOTTOM);
        legendTitle.setFrame(BlockBorder.NONE);
        legendTitle.setItemFont(new Font(Font.SANS_SERIF, Font.PLAIN, 10));
        chart.addLegend(legendTitle);
        return chart;
    }

    private static void add(XYIntervalSeries series, int row, double from, double to) {
        series.add(from, from, to, row, row - 0.3, row + 0.3);
    }

    /** The lock's name without the run's UUID, which says nothing on a chart. */
    private static String shortName(String lockName) {
        return lockName.replaceAll("-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", "");
    }
}
