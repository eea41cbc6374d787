package io.locksmith.tck.server;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A certificate authority and a server certificate it signed, made with {@code openssl} at test time (keys are
 * never committed): PEM files in a directory of their own. The server certificate names {@code localhost} and
 * {@code 127.0.0.1}, so a client that checks the host name ({@code verify-full}) accepts it on loopback. Each call
 * of {@link #create} makes a new authority, so a second one is "a CA the server's certificate does not come from".
 * EC keys (P-256): faster to make than RSA, and every client under test accepts them. {@link #clientCertificate}
 * signs client certificates for mutual TLS with the same authority (its key stays in {@code dir}, readable by its
 * owner only).
 *
 * @param dir        the directory of the files; delete it when done ({@link ServerProcess#deleteRecursively})
 * @param caCert     the authority's certificate, what a client trusts ({@code sslrootcert}, a trust store)
 * @param serverCert the server's certificate, signed by the authority
 * @param serverKey  its private key, unencrypted, readable by its owner only
 */
public record TestCertificates(Path dir, Path caCert, Path serverCert, Path serverKey) {

    /** How to install openssl. */
    public static final String OPENSSL_INSTALL_HINT = "sudo apt-get install -y openssl (Debian/Ubuntu)";

    /**
     * Makes a new authority and a server certificate for {@code localhost} and {@code 127.0.0.1} in a new
     * temporary directory, valid for two days.
     *
     * @param name for the directory and the certificates' common names, e.g. {@code postgres}
     * @throws IllegalStateException if openssl is missing (with the install hint) or fails
     */
    public static TestCertificates create(String name) {
        return createFor(name, "DNS:localhost,IP:127.0.0.1", "serverAuth");
    }

    /**
     * As {@link #create(String)}, for the names of {@code subjectAltName} only (openssl's form, e.g.
     * {@code DNS:elsewhere.invalid}): a certificate that does not name the host a client connects to, for tests of
     * host name checks; and with the uses of {@code extendedKeyUsage} ({@code serverAuth}, or
     * {@code serverAuth,clientAuth} for servers that connect to each other with the same certificate, as the nodes
     * of a Redis Cluster over TLS do on their bus, where Redis always asks the connecting node for its certificate).
     */
    public static TestCertificates createFor(String name, String subjectAltName, String extendedKeyUsage) {
        String openssl = ServerProcess.requireBinary("openssl", OPENSSL_INSTALL_HINT);
        Path dir = StoreServers.tempDir("certs-" + name);
        Path caKey = dir.resolve("ca.key");
        Path caCert = dir.resolve("ca.crt");
        Path serverKey = dir.resolve("server.key");
        Path request = dir.resolve("server.csr");
        Path serverCert = dir.resolve("server.crt");
        Path extensions = dir.resolve("server.ext");
        try {
            Files.writeString(extensions, "subjectAltName=" + subjectAltName + "\n"
                    + "extendedKeyUsage=" + extendedKeyUsage + "\n");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + extensions, e);
        }
        String curve = "ec_paramgen_curve:prime256v1";
        run(dir, openssl, "req", "-x509", "-newkey", "ec", "-pkeyopt", curve, "-nodes", "-keyout", caKey.toString(),
                "-out", caCert.toString(), "-days", "2", "-subj", "/CN=locksmith test CA " + name);
        run(dir, openssl, "req", "-newkey", "ec", "-pkeyopt", curve, "-nodes", "-keyout", serverKey.toString(),
                "-out", request.toString(), "-subj", "/CN=localhost");
        run(dir, openssl, "x509", "-req", "-in", request.toString(), "-CA", caCert.toString(), "-CAkey",
                caKey.toString(), "-CAcreateserial", "-out", serverCert.toString(), "-days", "2", "-extfile",
                extensions.toString());
        try {
            Files.setPosixFilePermissions(serverKey, PosixFilePermissions.fromString("rw-------"));
            Files.setPosixFilePermissions(caKey, PosixFilePermissions.fromString("rw-------"));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot restrict " + serverKey, e);
        }
        return new TestCertificates(dir, caCert, serverCert, serverKey);
    }

    /**
     * A client certificate and its key, for mutual TLS.
     *
     * @param cert the certificate, signed by the authority that made it
     * @param key  its private key (PKCS#8 PEM, unencrypted), readable by its owner only
     */
    public record ClientCertificate(Path cert, Path key) {
    }

    /**
     * Signs a client certificate ({@code extendedKeyUsage=clientAuth}) for {@code commonName} with this authority,
     * valid for two days; the files are {@code client-<commonName>.crt} and {@code .key} in {@link #dir}. etcd takes
     * the common name as the user when a client sends no password ({@code --client-cert-auth}).
     *
     * @throws IllegalStateException if openssl fails
     */
    public ClientCertificate clientCertificate(String commonName) {
        if (!commonName.matches("[A-Za-z0-9._-]+")) {
            throw new IllegalArgumentException("a common name of letters, digits, '.', '_' and '-', was '"
                    + commonName + "'");
        }
        String openssl = ServerProcess.requireBinary("openssl", OPENSSL_INSTALL_HINT);
        Path key = dir.resolve("client-" + commonName + ".key");
        Path request = dir.resolve("client-" + commonName + ".csr");
        Path cert = dir.resolve("client-" + commonName + ".crt");
        Path extensions = dir.resolve("client.ext");
        try {
            Files.writeString(extensions, "extendedKeyUsage=clientAuth\n");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + extensions, e);
        }
        run(dir, openssl, "req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-keyout",
                key.toString(), "-out", request.toString(), "-subj", "/CN=" + commonName);
        run(dir, openssl, "x509", "-req", "-in", request.toString(), "-CA", caCert.toString(), "-CAkey",
                dir.resolve("ca.key").toString(), "-CAcreateserial", "-out", cert.toString(), "-days", "2",
                "-extfile", extensions.toString());
        try {
            Files.setPosixFilePermissions(key, PosixFilePermissions.fromString("rw-------"));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot restrict " + key, e);
        }
        return new ClientCertificate(cert, key);
    }

    /**
     * A second server certificate from this authority that names only {@code subjectAltName} (e.g.
     * {@code DNS:localhost}), to show that a client checks the host name: one that connects to {@code 127.0.0.1} must
     * refuse it. The files are {@code server-<label>.crt} and {@code .key} in {@link #dir}; the result shares this
     * authority and directory.
     *
     * @throws IllegalStateException if openssl fails
     */
    public TestCertificates withServerCertificateFor(String label, String subjectAltName) {
        if (!label.matches("[A-Za-z0-9._-]+")) {
            throw new IllegalArgumentException("a label of letters, digits, '.', '_' and '-', was '" + label + "'");
        }
        String openssl = ServerProcess.requireBinary("openssl", OPENSSL_INSTALL_HINT);
        Path key = dir.resolve("server-" + label + ".key");
        Path request = dir.resolve("server-" + label + ".csr");
        Path cert = dir.resolve("server-" + label + ".crt");
        Path extensions = dir.resolve("server-" + label + ".ext");
        try {
            Files.writeString(extensions, "subjectAltName=" + subjectAltName + "\nextendedKeyUsage=serverAuth\n");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + extensions, e);
        }
        run(dir, openssl, "req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-keyout",
                key.toString(), "-out", request.toString(), "-subj", "/CN=" + label);
        run(dir, openssl, "x509", "-req", "-in", request.toString(), "-CA", caCert.toString(), "-CAkey",
                dir.resolve("ca.key").toString(), "-CAcreateserial", "-out", cert.toString(), "-days", "2",
                "-extfile", extensions.toString());
        try {
            Files.setPosixFilePermissions(key, PosixFilePermissions.fromString("rw-------"));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot restrict " + key, e);
        }
        return new TestCertificates(dir, caCert, cert, key);
    }

    private static void run(Path dir, String openssl, String... args) {
        List<String> command = new ArrayList<>(List.of(openssl));
        command.addAll(List.of(args));
        Path log = dir.resolve("openssl.log");
        try {
            Process process = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
            if (!process.waitFor(30, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                throw new IllegalStateException("openssl did not finish within 30 s: " + command);
            }
            if (process.exitValue() != 0) {
                throw new IllegalStateException("openssl failed with code " + process.exitValue() + ": " + command
                        + "\n" + Files.readString(log));
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot run " + command, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while running openssl", e);
        }
    }
}
