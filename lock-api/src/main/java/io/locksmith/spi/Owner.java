package io.locksmith.spi;

import io.locksmith.HolderIdentity;

import java.util.Objects;

/**
 * The owner of one store lock: an id unique to one holding (client id plus a sequence number), and the
 * holder identity to store beside it for {@code inspect}. A provider compares {@link #id()} before it
 * renews or releases, so a holder whose lease ran out can never touch its successor's lock.
 *
 * @param id      unique per holding, never reused; at most 100 characters, no whitespace
 * @param holder  who holds it
 */
public record Owner(String id, HolderIdentity holder) {
    public Owner {
        Objects.requireNonNull(id, "id cannot be null");
        Objects.requireNonNull(holder, "holder cannot be null");
    }
}
