package io.locksmith.lockctl;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;

/** A plain text table with a header row; columns as wide as their widest cell. */
final class Table {

    private final List<String[]> rows = new ArrayList<>();
    private final int columns;

    Table(String... header) {
        this.columns = header.length;
        rows.add(header);
    }

    Table row(Object... cells) {
        String[] row = new String[columns];
        for (int i = 0; i < columns; i++) {
            row[i] = i < cells.length && cells[i] != null ? String.valueOf(cells[i]) : "";
        }
        rows.add(row);
        return this;
    }

    void print(PrintWriter out) {
        int[] widths = new int[columns];
        for (String[] row : rows) {
            for (int i = 0; i < columns; i++) {
                widths[i] = Math.max(widths[i], row[i].length());
            }
        }
        for (String[] row : rows) {
            StringBuilder line = new StringBuilder();
            for (int i = 0; i < columns; i++) {
                line.append(i == columns - 1 ? row[i] : String.format("%-" + (widths[i] + 2) + "s", row[i]));
            }
            out.println(line.toString().stripTrailing());
        }
    }
}
