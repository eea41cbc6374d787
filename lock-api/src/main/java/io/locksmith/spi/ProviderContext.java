package io.locksmith.spi;

/**
 * What the shared client gives a provider when it is created.
 *
 * @param clientId      the id of the client that owns the provider ({@link io.locksmith.LockClient#clientId()}): a
 *                      random UUID unless the application set one with
 *                      {@link io.locksmith.LockClient.Builder#clientId(String)}, which must then be unique among the
 *                      live clients. Each client creates its own provider, so among the providers of live clients the
 *                      id is unique, with one exception: a migrating client ({@code migrate:}) passes its id to both
 *                      stores' providers. Code that creates a provider without a client (a tool, the TCK's registry
 *                      kit) passes an id of its own, unique in the same way. It is at most 64 characters of
 *                      {@code [A-Za-z0-9._:-]}, fit for naming the provider's connections and threads. Every owner id
 *                      of the client's holdings starts with it; ownership is decided by the whole {@link Owner#id()},
 *                      never by the client id (SPEC R2.5)
 * @param lossListener  where the provider reports locks the store lost on its own
 */
public record ProviderContext(String clientId, LossListener lossListener) {
}
