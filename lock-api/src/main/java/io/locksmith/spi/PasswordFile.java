package io.locksmith.spi;

import io.locksmith.LockConfigurationException;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/**
 * A password read from a file each time a store client logs in ({@code ?passwordFile=/run/secrets/locks}), so that a
 * mounted secret (a Kubernetes Secret volume, a file Vault Agent renders) that is replaced while the application runs
 * is used by the next connection or re-login, without a restart. The file holds the password alone; one trailing line
 * break ({@code \n} or {@code \r\n}, as {@code echo} and most editors write) is not part of it.
 *
 * <p>Backends read the parameter with {@link #of(LockUri)}, which refuses it together with a password in the URI or
 * {@code passwordEnv} (which password would count is then unclear), and call {@link #read()} wherever their driver
 * asks for credentials. No message of this class holds the file's content: only its path.
 *
 * <p>Instances are immutable and safe to use from any thread.
 */
public final class PasswordFile {

    /** The URI parameter: {@code passwordFile=/path}. */
    public static final String PARAMETER = "passwordFile";

    private static final String PASSWORD_ENV = "passwordEnv";

    private final Path path;

    private PasswordFile(Path path) {
        this.path = path;
    }

    /**
     * The URI's {@code passwordFile} parameter, marked read, and read once now so that a missing, unreadable or empty
     * file fails the open (or {@link LockProviderFactory#validate}) instead of the first login.
     *
     * @return the file, or empty if the URI has no {@code passwordFile}
     * @throws LockConfigurationException if the parameter is empty, the URI also has a password or {@code passwordEnv},
     *                                    or the file cannot be read or is empty
     */
    public static Optional<PasswordFile> of(LockUri uri) {
        Optional<String> value = uri.parameter(PARAMETER).map(String::strip);
        uri.markRead(PARAMETER);
        if (value.isEmpty()) {
            return Optional.empty();
        }
        if (value.get().isEmpty()) {
            throw new LockConfigurationException("parameter '" + PARAMETER + "' of '" + uri + "' is empty; name the"
                    + " file that holds the password, e.g. passwordFile=/run/secrets/locksmith-password");
        }
        if (uri.password().isPresent()) {
            throw new LockConfigurationException("'" + uri + "' has a password and parameter '" + PARAMETER
                    + "'; give only one of them");
        }
        if (uri.parameter(PASSWORD_ENV).isPresent()) {
            throw new LockConfigurationException("'" + uri + "' has parameters '" + PASSWORD_ENV + "' and '"
                    + PARAMETER + "'; give only one of them");
        }
        PasswordFile file = new PasswordFile(Path.of(value.get()));
        file.read();
        return Optional.of(file);
    }

    /** The file, for messages. */
    public Path path() {
        return path;
    }

    /**
     * Reads the password now: the file's content (UTF-8) without one trailing line break.
     *
     * @return the password, never empty
     * @throws LockConfigurationException if the file cannot be read or holds no password; the message names the
     *                                    file, never its content
     */
    public String read() {
        String content;
        try {
            content = Files.readString(path, StandardCharsets.UTF_8);
        } catch (IOException | SecurityException e) {
            // The exception's own message names only the path and the reason (NoSuchFileException, AccessDenied...).
            throw new LockConfigurationException("cannot read the password file '" + path + "' (" + PARAMETER + "): "
                    + e.getClass().getSimpleName() + (e.getMessage() == null ? "" : ": " + e.getMessage()), e);
        }
        if (content.endsWith("\r\n")) {
            content = content.substring(0, content.length() - 2);
        } else if (content.endsWith("\n")) {
            content = content.substring(0, content.length() - 1);
        }
        if (content.isEmpty()) {
            throw new LockConfigurationException("the password file '" + path + "' (" + PARAMETER + ") is empty");
        }
        return content;
    }

    /** Names the file, never the password. */
    @Override
    public String toString() {
        return PARAMETER + "=" + path;
    }
}
