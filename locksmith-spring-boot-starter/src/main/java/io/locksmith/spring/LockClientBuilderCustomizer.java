package io.locksmith.spring;

import io.locksmith.LockClient;

/**
 * Adjusts the auto-configured {@link LockClient.Builder} after the {@code locksmith.*} properties were applied
 * and before the client is built: a custom trace id source, a factory holding an existing connection, ...
 * Every bean of this type is applied, in {@link org.springframework.core.annotation.Order @Order}.
 */
@FunctionalInterface
public interface LockClientBuilderCustomizer {
    /** Adjusts the builder. */
    void customize(LockClient.Builder builder);
}
