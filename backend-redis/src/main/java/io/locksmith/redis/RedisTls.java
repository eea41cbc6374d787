package io.locksmith.redis;

import io.locksmith.LockConfigurationException;
import io.locksmith.LockStoreException;
import io.locksmith.spi.LockUri;

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
import java.util.Locale;

/**
 * The authorities a Redis URI with TLS trusts ({@code trustStore}), loaded once when the URI is read and handed to
 * each transport in the form it takes: an {@link SSLSocketFactory} for Jedis, a {@link TrustManagerFactory} for
 * Redisson and Lettuce. Without {@code trustStore} the JVM's default trust store is used. Host names are checked
 * against the certificate in every case ({@link #verifyingHostNames()}).
 *
 * @param trustStore the file, for messages; null for the JVM's default
 * @param trust      the trust managers of that file; null for the JVM's default
 */
record RedisTls(Path trustStore, TrustManagerFactory trust) {

    static final String PARAM_TRUST_STORE = "trustStore";
    static final String PARAM_TRUST_STORE_PASSWORD = "trustStorePassword";

    /** The JVM's default authorities. */
    static final RedisTls DEFAULT = new RedisTls(null, null);

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
            if (file != null || uri.parameters().containsKey(PARAM_TRUST_STORE_PASSWORD)) {
                throw new LockConfigurationException("parameter '" + PARAM_TRUST_STORE + "' of '" + uri + "' needs TLS:"
                        + " use rediss://, rediss-sentinel:// or rediss-cluster:// (ssl=true on redlock://); without"
                        + " it the client would connect in clear text");
            }
            return null;
        }
        if (file == null) {
            if (uri.parameters().containsKey(PARAM_TRUST_STORE_PASSWORD)) {
                throw new LockConfigurationException("parameter '" + PARAM_TRUST_STORE_PASSWORD + "' of '" + uri
                        + "' has no effect without trustStore=<file>");
            }
            return DEFAULT;
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
            return new RedisTls(path, trust);
        } catch (IOException | GeneralSecurityException e) {
            // Never the password: a wrong one shows as "keystore password was incorrect" from the JDK.
            throw new LockConfigurationException("parameter '" + PARAM_TRUST_STORE + "' of '" + uri + "': cannot read '"
                    + path + "' as " + type(path) + ": " + e.getMessage(), e);
        }
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
        if (trust == null) {
            return (SSLSocketFactory) SSLSocketFactory.getDefault();
        }
        try {
            SSLContext context = SSLContext.getInstance("TLS");
            context.init(null, trust.getTrustManagers(), null);
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
                        + " and name the host the URI gives", failure);
            }
        }
        return failure;
    }

    /** For messages: the trusted authorities' file, or the JVM's default. */
    String describe() {
        return trustStore == null ? "the JVM's default trust store" : "trustStore=" + trustStore;
    }
}
