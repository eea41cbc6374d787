package io.locksmith.redis;

import io.locksmith.tck.server.SecretChecks;
import io.locksmith.LockClient;
import io.locksmith.tck.server.ServerProcess;
import io.locksmith.tck.server.TestCertificates;

import java.io.PrintWriter;
import java.io.StringWriter;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

/**
 * A TLS-only redis-server with a certificate the harness made, and the user of the documented ACL on it (password
 * {@link RedisAclSupport#PASSWORD}); the default user, without a password, is for the tests' own helpers. One per
 * test class: {@link #close()} stops the server and deletes the certificates.
 */
final class RedisTlsSupport implements AutoCloseable {

    final TestCertificates certificates;
    final RedisServer server;

    RedisTlsSupport() {
        certificates = TestCertificates.create("redis");
        RedisServer started = null;
        try {
            started = RedisServer.startWithTls(certificates);
            RedisAclSupport.setUser(started, RedisAclSupport.USER, RedisAclSupport.documentedRules());
        } catch (RuntimeException | Error e) {
            if (started != null) {
                started.close();
            }
            ServerProcess.deleteRecursively(certificates.dir());
            throw e;
        }
        server = started;
    }

    /** {@code rediss://} as the ACL user with {@code password}, trusting {@code trusted}'s authority, over {@code client}. */
    String uri(String password, TestCertificates trusted, String client) {
        return "rediss://" + RedisAclSupport.USER + ":" + password + "@" + server.address() + "?client=" + client
                + "&trustStore=" + trusted.caCert();
    }

    /** The kit's URI: the ACL user, the right password, this server's authority. */
    String uri(String client) {
        return uri(RedisAclSupport.PASSWORD, certificates, client);
    }

    /** The premise of the TLS kits: the server has no plain port, so every connection of a client that works is TLS. */
    void assertTlsOnly() {
        try (var jedis = server.jedis()) {
            assertEquals("0", jedis.configGet("port").get("port"));
        }
    }

    /**
     * Nothing a client sent was refused ({@code ACL LOG} is empty): a refusal a client rides out fails no rule, yet the
     * documented ACL would not be all it needs.
     */
    void assertNothingRefused() {
        try (var jedis = server.jedis()) {
            var log = jedis.aclLog();
            org.junit.jupiter.api.Assertions.assertTrue(log.isEmpty(), "the server refused the user: " + log);
        }
    }

    /** The failure's messages and stack traces, its causes' and suppressed failures' included, lack {@code secret}. */
    static void assertNoSecret(Throwable failure, String secret) {
        SecretChecks.assertNoSecret(failure, secret);
    }

    /**
     * A PKCS#12 trust store ({@code ca.p12} beside the PEM files) holding the authority of {@code certificates}, made
     * with the JDK's {@code keytool}.
     */
    static java.nio.file.Path pkcs12TrustStore(TestCertificates certificates, String password) {
        java.nio.file.Path store = certificates.dir().resolve("ca.p12");
        String keytool = java.nio.file.Path.of(System.getProperty("java.home"), "bin", "keytool").toString();
        try {
            Process process = new ProcessBuilder(keytool, "-importcert", "-noprompt", "-alias", "ca", "-file",
                    certificates.caCert().toString(), "-keystore", store.toString(), "-storetype", "PKCS12",
                    "-storepass", password).redirectErrorStream(true).start();
            String output = new String(process.getInputStream().readAllBytes());
            if (process.waitFor() != 0) {
                throw new IllegalStateException("keytool failed: " + output);
            }
            return store;
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    static LockClient open(String uri) {
        return LockClient.open(uri);
    }

    @Override
    public void close() {
        try {
            server.close();
        } finally {
            ServerProcess.deleteRecursively(certificates.dir());
        }
    }
}
