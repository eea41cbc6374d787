package io.locksmith.it;

import io.locksmith.migrate.MigrationPhase;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;

/** Builds {@code migrate:} URIs over two running deployments. */
final class MigrationUris {

    private MigrationUris() {
    }

    static String of(String oldUri, String newUri, MigrationPhase phase) {
        return "migrate:?from=" + URLEncoder.encode(oldUri, StandardCharsets.UTF_8)
                + "&to=" + URLEncoder.encode(newUri, StandardCharsets.UTF_8)
                + "&phase=" + phase.configName() + "&guardTtl=5s&lease=5s";
    }
}
