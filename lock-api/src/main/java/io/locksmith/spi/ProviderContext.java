package io.locksmith.spi;

/**
 * What the shared client gives a provider when it is created.
 *
 * @param clientId      the id of the client that owns the provider
 * @param lossListener  where the provider reports locks the store lost on its own
 */
public record ProviderContext(String clientId, LossListener lossListener) {
}
