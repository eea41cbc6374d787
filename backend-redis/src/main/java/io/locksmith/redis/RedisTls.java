package io.locksmith.redis;

import io.locksmith.LockConfigurationException;
import io.locksmith.LockStoreException;
import io.locksmith.spi.LockUri;

import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocketFactory;
import javax.net.ssl.TrustManagerFactory;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.util.Collection;
import java.util.List;
import java.util.Locale;

/**
 * The authorities a Redis URI with TLS trusts ({@code trustStore}) and the certificate it shows the server
 * ({@code keyStore}, for servers with {@code tls-auth-clients yes}), loaded once when the URI is read and handed to
 * each transport in the form it takes: an {@link SSLSocketFactory} for Jedis, a {@link TrustManagerFactory} and a
 * {@link KeyManagerFactory} for Redisson and Lettuce. Without {@code trustStore} the JVM's default trust store is used;
 * without {@code keyStore} no client certificate is sent. Host names are checked against the certificate in every case
 * ({@link #verifyingHostNames()}).
 *
 * @param trustStore the file, for messages; null for the JVM's default
 * @param trust      the trust managers of that file; null for the JVM's default
 * @param keyStore   the client certificate's file, for messages; null without one
 * @param keys       the key managers of that file; null without one
 */
record RedisTls(Path trustStore, TrustManagerFactory trust, Path keyStore, KeyManagerFactory keys) {

    static final String PARAM_TRUST_STORE = "trustStore";
    static final String PARAM_TRUST_STORE_PASSWORD = "trustStorePassword";
    static final String PARAM_KEY_STORE = "keyStore";
    static final String PARAM_KEY_STORE_PASSWORD = "keyStorePassword";

    /** The JVM's default authorities, no client certificate. */
    static final RedisTls DEFAULT = new RedisTls(null, null, null, null);

    /**
     * What the URI asks: {@code trustStore=/path} (PEM certificates, or a JKS/PKCS#12 store by its extension
     * {@code .jks}, {@code .p12}, {@code .pfx}, with {@code trustStorePassword} if it has one); null without TLS.
     *
     * @throws LockConfigurationException if {@code trustStore} is given without TLS, or the file cannot be read
     *                                    or holds no certificate
     */
    static RedisTls parse(LockUri uri, boolean ssl) {
        String file = uri.parameter(PARAM_TRUST_STORE).orElse(null);
        if (!ssl) {
            for (String parameter : List.of(PARAM_TRUST_STORE, PARAM_TRUST_STORE_PASSWORD, PARAM_KEY_STORE,
                    PARAM_KEY_STORE_PASSWORD)) {
                if (uri.parameters().containsKey(parameter)) {
                    throw new LockConfigurationException("parameter '" + parameter + "' of '" + uri + "' needs TLS:"
                            + " use rediss://, rediss-sentinel:// or rediss-cluster:// (ssl=true on redlock://); without"
                            + " it the client would connect in clear text");
                }
            }
            return null;
        }
        Path keyStore = null;
        KeyManagerFactory keys = null;
        String keyFile = uri.parameter(PARAM_KEY_STORE).orElse(null);
        if (keyFile == null) {
            if (uri.parameters().containsKey(PARAM_KEY_STORE_PASSWORD)) {
                throw new LockConfigurationException("parameter '" + PARAM_KEY_STORE_PASSWORD + "' of '" + uri
                        + "' has no effect without keyStore=<file>");
            }
        } else {
            keyStore = Path.of(keyFile);
            keys = keyManagers(uri, keyStore, uri.parameter(PARAM_KEY_STORE_PASSWORD).orElse(null));
        }
        if (file == null) {
            if (uri.parameters().containsKey(PARAM_TRUST_STORE_PASSWORD)) {
                throw new LockConfigurationException("parameter '" + PARAM_TRUST_STORE_PASSWORD + "' of '" + uri
                        + "' has no effect without trustStore=<file>");
            }
            return keys == null ? DEFAULT : new RedisTls(null, null, keyStore, keys);
        }
        Path path = Path.of(file);
        if (!Files.isRegularFile(path) || !Files.isReadable(path)) {
            throw new LockConfigurationException("parameter '" + PARAM_TRUST_STORE + "' of '" + uri + "' names '" + path
                    + "', which is not a readable file");
        }
        String password = uri.parameter(PARAM_TRUST_STORE_PASSWORD).orElse(null);
        try {
            KeyStore store = load(path, password);
            if (store.size() == 0) {
                throw new LockConfigurationException("parameter '" + PARAM_TRUST_STORE + "' of '" + uri + "' names '"
                        + path + "', which holds no certificate");
            }
            TrustManagerFactory trust = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            trust.init(store);
            return new RedisTls(path, trust, keyStore, keys);
        } catch (IOException | GeneralSecurityException e) {
            // Never the password: a wrong one shows as "keystore password was incorrect" from the JDK.
            throw new LockConfigurationException("parameter '" + PARAM_TRUST_STORE + "' of '" + uri + "': cannot read '"
                    + path + "' as " + type(path) + ": " + e.getMessage(), e);
        }
    }

    /**
     * The client certificate and key of {@code keyStore=}: one PEM file with the certificate (chain) and the unencrypted
     * PKCS#8 key ({@code BEGIN PRIVATE KEY}, as {@code openssl genpkey} or {@code openssl pkcs8 -topk8 -nocrypt}
     * writes it), or a JKS/PKCS#12 store by its extension with {@code keyStorePassword} if it has one.
     *
     * @throws LockConfigurationException if the file cannot be read or holds no key with its certificate; never with
     *                                    the password
     */
    private static KeyManagerFactory keyManagers(LockUri uri, Path path, String password) {
        if (!Files.isRegularFile(path) || !Files.isReadable(path)) {
            throw new LockConfigurationException("parameter '" + PARAM_KEY_STORE + "' of '" + uri + "' names '" + path
                    + "', which is not a readable file");
        }
        char[] secret = password == null ? new char[0] : password.toCharArray();
        try {
            KeyStore store;
            if (type(path).equals("PEM")) {
                store = pemKeyStore(uri, path);
            } else {
                store = KeyStore.getInstance(type(path));
                try (InputStream in = Files.newInputStream(path)) {
                    store.load(in, secret);
                }
            }
            KeyManagerFactory keys = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
            keys.init(store, secret);
            return keys;
        } catch (IOException | GeneralSecurityException e) {
            throw new LockConfigurationException("parameter '" + PARAM_KEY_STORE + "' of '" + uri + "': cannot read '"
                    + path + "' as " + type(path) + ": " + e.getMessage(), e);
        }
    }

    private static KeyStore pemKeyStore(LockUri uri, Path path) throws IOException, GeneralSecurityException {
        String text = Files.readString(path, java.nio.charset.StandardCharsets.US_ASCII);
        java.util.regex.Matcher key = java.util.regex.Pattern
                .compile("-----BEGIN PRIVATE KEY-----([^-]+)-----END PRIVATE KEY-----").matcher(text);
        if (!key.find()) {
            throw new LockConfigurationException("parameter '" + PARAM_KEY_STORE + "' of '" + uri + "' names '" + path
                    + "', which holds no unencrypted PKCS#8 key (BEGIN PRIVATE KEY): put the client certificate and its"
                    + " key in one PEM file (openssl pkcs8 -topk8 -nocrypt converts an EC or RSA key), or use a .p12");
        }
        byte[] der = java.util.Base64.getMimeDecoder().decode(key.group(1));
        java.security.PrivateKey privateKey = null;
        for (String algorithm : List.of("EC", "RSA", "Ed25519")) {
            try {
                privateKey = java.security.KeyFactory.getInstance(algorithm)
                        .generatePrivate(new java.security.spec.PKCS8EncodedKeySpec(der));
                break;
            } catch (java.security.spec.InvalidKeySpecException e) {
                // another algorithm
            }
        }
        // The certificate blocks alone: the X.509 parser stops at the key block and rejects it.
        List<Certificate> chain = new java.util.ArrayList<>();
        java.util.regex.Matcher block = java.util.regex.Pattern
                .compile("-----BEGIN CERTIFICATE-----[^-]+-----END CERTIFICATE-----").matcher(text);
        CertificateFactory x509 = CertificateFactory.getInstance("X.509");
        while (block.find()) {
            chain.add(x509.generateCertificate(new java.io.ByteArrayInputStream(
                    block.group().getBytes(java.nio.charset.StandardCharsets.US_ASCII))));
        }
        if (privateKey == null || chain.isEmpty()) {
            throw new LockConfigurationException("parameter '" + PARAM_KEY_STORE + "' of '" + uri + "' names '" + path
                    + "', which holds " + (privateKey == null ? "no EC, RSA or Ed25519 key" : "no certificate")
                    + ": put the client certificate and its key in one PEM file");
        }
        KeyStore store = KeyStore.getInstance("PKCS12");
        store.load(null, null);
        store.setKeyEntry("client", privateKey, new char[0], chain.toArray(Certificate[]::new));
        return store;
    }

    private static String type(Path path) {
        String name = path.getFileName().toString().toLowerCase(Locale.ROOT);
        if (name.endsWith(".jks")) {
            return "JKS";
        }
        if (name.endsWith(".p12") || name.endsWith(".pfx")) {
            return "PKCS12";
        }
        return "PEM";
    }

    private static KeyStore load(Path path, String password) throws IOException, GeneralSecurityException {
        String type = type(path);
        try (InputStream in = Files.newInputStream(path)) {
            if (!type.equals("PEM")) {
                KeyStore store = KeyStore.getInstance(type);
                store.load(in, password == null ? null : password.toCharArray());
                return store;
            }
            Collection<? extends Certificate> certificates = CertificateFactory.getInstance("X.509").generateCertificates(in);
            KeyStore store = KeyStore.getInstance(KeyStore.getDefaultType());
            store.load(null, null);
            int i = 0;
            for (Certificate certificate : certificates) {
                store.setCertificateEntry("ca-" + i++, certificate);
            }
            return store;
        }
    }

    /** Jedis' sockets: this trust, or the JVM's default. */
    SSLSocketFactory socketFactory() {
        if (trust == null && keys == null) {
            return (SSLSocketFactory) SSLSocketFactory.getDefault();
        }
        try {
            SSLContext context = SSLContext.getInstance("TLS");
            context.init(keys == null ? null : keys.getKeyManagers(), trust == null ? null : trust.getTrustManagers(),
                    null);
            return context.getSocketFactory();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("this JVM cannot make a TLS context", e);
        }
    }

    /**
     * Parameters that make a JDK TLS socket check the server's host name (or IP address) against its certificate, as
     * HTTPS does: Jedis leaves the check out unless it is asked for.
     */
    static SSLParameters verifyingHostNames() {
        SSLParameters parameters = new SSLParameters();
        parameters.setEndpointIdentificationAlgorithm("HTTPS");
        return parameters;
    }

    /**
     * {@code failure} with what to check when a TLS handshake is in its causes (a certificate from an authority not
     * trusted, or one that does not name the host); {@code failure} itself otherwise.
     */
    LockStoreException explain(LockStoreException failure) {
        for (Throwable cause = failure; cause != null; cause = cause.getCause() == cause ? null : cause.getCause()) {
            if (cause instanceof SSLException) {
                return new LockStoreException(failure.getMessage() + "; the TLS handshake failed (" + cause.getMessage()
                        + "): the server's certificate must be signed by an authority in " + describe()
                        + " and name the host the URI gives; a server with tls-auth-clients yes also needs this"
                        + " client's certificate from an authority it trusts (" + describeClientCertificate() + ")",
                        failure);
            }
        }
        if (closedAfterHandshake(failure)) {
            // TLS 1.3: the client's handshake ends before the server has checked the client's certificate, so a refused
            // (or missing) one shows only as the server closing the connection at the first command.
            return new LockStoreException(failure.getMessage() + "; over TLS the server closed the connection or did"
                    + " not answer: a server with tls-auth-clients yes does so when the client sends no certificate or one"
                    + " from an authority it does not trust (" + describeClientCertificate() + ")", failure);
        }
        return failure;
    }

    /**
     * Whether {@code failure} looks like a connection the server closed or left unanswered after the handshake, not a
     * refused connection (nothing listens) nor a refused password (the server answered).
     */
    private static boolean closedAfterHandshake(Throwable failure) {
        for (Throwable cause = failure; cause != null; cause = cause.getCause() == cause ? null : cause.getCause()) {
            String message = String.valueOf(cause.getMessage());
            if (cause instanceof java.net.ConnectException || message.contains("WRONGPASS") || message.contains("NOAUTH")
                    || message.contains("NOPERM") || message.contains("Connection refused")) {
                return false;
            }
        }
        return true;
    }

    /** For messages: the client certificate's file, or that none is sent. */
    String describeClientCertificate() {
        return keyStore == null ? "no client certificate (keyStore)" : "client certificate from keyStore=" + keyStore;
    }

    /** For messages: the trusted authorities' file, or the JVM's default. */
    String describe() {
        return trustStore == null ? "the JVM's default trust store" : "trustStore=" + trustStore;
    }
}
