package io.locksmith.etcd;

import io.etcd.jetcd.ByteSequence;

/**
 * What a {@link io.locksmith.spi.Grant} of this backend carries: the holder's key, the revision that
 * created it (the fencing token; a key re-created under the same name has another) and its lease.
 */
record KeyHandle(ByteSequence key, long createRevision, long leaseId) {
}
