package io.locksmith.spi;

import java.time.Duration;
import java.util.Objects;

/**
 * One renewal: extend {@code grant} so that the store keeps it for {@code ttl} from now.
 *
 * @param grant  what was granted
 * @param ttl    the new time to live
 */
public record RenewRequest(Grant grant, Duration ttl) {
    public RenewRequest {
        Objects.requireNonNull(grant, "grant cannot be null");
        Objects.requireNonNull(ttl, "ttl cannot be null");
    }
}
