package io.locksmith.postgres;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** The SQL that docs/POSTGRES.md tells an administrator to run, so that tests run exactly that. */
final class PostgresDocs {

    private static final Path DOC = Path.of("..", "docs", "POSTGRES.md");

    private PostgresDocs() {
    }

    /**
     * The statements of the first {@code sql} block of docs/POSTGRES.md (the schema and the grants), comments
     * dropped, with the schema {@code public} and the role {@code app} of the doc replaced by {@code schema} and
     * {@code role}.
     */
    static List<String> schemaScript(String schema, String role) {
        String doc;
        try {
            doc = Files.readString(DOC);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + DOC.toAbsolutePath(), e);
        }
        int start = doc.indexOf("```sql\n");
        if (start < 0) {
            throw new IllegalStateException(DOC + " has no sql block");
        }
        start += "```sql\n".length();
        String block = doc.substring(start, doc.indexOf("```", start));
        StringBuilder sql = new StringBuilder();
        for (String line : block.split("\n")) {
            int comment = line.indexOf("--");
            sql.append(comment < 0 ? line : line.substring(0, comment)).append('\n');
        }
        List<String> statements = new ArrayList<>();
        for (String statement : sql.toString().split(";")) {
            String normalized = normalize(statement);
            if (!normalized.isEmpty()) {
                statements.add(normalized.replace("public.", schema + ".").replace("SCHEMA IF NOT EXISTS public",
                                "SCHEMA IF NOT EXISTS " + schema).replace("ON SCHEMA public", "ON SCHEMA " + schema)
                        .replace(" TO app", " TO " + role));
            }
        }
        return statements;
    }

    /** One line, single spaces, no space inside parentheses: for comparing SQL that was laid out differently. */
    static String normalize(String sql) {
        return sql.strip().replaceAll("\\s+", " ").replace("( ", "(").replace(" )", ")");
    }
}
