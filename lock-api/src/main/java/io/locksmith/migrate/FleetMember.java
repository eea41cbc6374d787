package io.locksmith.migrate;

/**
 * A live client of a migration, as announced in a store.
 *
 * @param clientId  the client's id
 * @param phase     the phase it runs in
 * @param seenIn    the store where its announcement was read
 */
public record FleetMember(String clientId, MigrationPhase phase, String seenIn) {
}
