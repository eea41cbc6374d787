package io.locksmith;

import java.io.IOException;
import java.io.InputStream;
import java.util.Optional;
import java.util.Properties;

/**
 * Finds the store URI outside the code: system property, environment variable, classpath properties. In the API
 * package because {@link LockClient#fromEnvironment()} needs nothing else from the shared client.
 */
final class EnvironmentUri {

    private EnvironmentUri() {
    }

    /**
     * The URI from the first source that sets it.
     *
     * @throws LockConfigurationException if none does, naming all three sources
     */
    static String uriFromEnvironment() {
        return find().orElseThrow(() -> new LockConfigurationException("no lock store configured: set the system"
                + " property '" + LockClient.SYSTEM_PROPERTY + "', the environment variable '" + LockClient.ENV_VARIABLE
                + "', or the key 'locksmith.uri' in a classpath resource '" + LockClient.PROPERTIES_RESOURCE
                + "' (e.g. locksmith.uri=mem://)"));
    }

    /** The URI from the first source that sets it, or empty. */
    static Optional<String> find() {
        String fromProperty = System.getProperty(LockClient.SYSTEM_PROPERTY);
        if (fromProperty != null && !fromProperty.isBlank()) {
            return Optional.of(fromProperty);
        }
        String fromEnvironment = System.getenv(LockClient.ENV_VARIABLE);
        if (fromEnvironment != null && !fromEnvironment.isBlank()) {
            return Optional.of(fromEnvironment);
        }
        return Optional.ofNullable(fromPropertiesResource(Thread.currentThread().getContextClassLoader()));
    }

    static String fromPropertiesResource(ClassLoader loader) {
        ClassLoader classLoader = loader != null ? loader : EnvironmentUri.class.getClassLoader();
        try (InputStream in = classLoader.getResourceAsStream(LockClient.PROPERTIES_RESOURCE)) {
            if (in == null) {
                return null;
            }
            Properties properties = new Properties();
            properties.load(in);
            String value = properties.getProperty(LockClient.SYSTEM_PROPERTY);
            return value == null || value.isBlank() ? null : value.strip();
        } catch (IOException e) {
            throw new LockConfigurationException("cannot read classpath resource '" + LockClient.PROPERTIES_RESOURCE
                    + "': " + e.getMessage(), e);
        }
    }
}
