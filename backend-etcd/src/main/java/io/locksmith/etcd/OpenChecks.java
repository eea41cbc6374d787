package io.locksmith.etcd;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.KV;
import io.etcd.jetcd.options.GetOption;
import io.etcd.jetcd.options.PutOption;
import io.locksmith.LockConfigurationException;
import io.locksmith.LockStoreException;

import java.util.Locale;

/**
 * What the open of an etcd client checks beyond "etcd answers", and how it explains a failure: a refused login, a
 * failed TLS handshake, or a user whose roles do not cover the lock prefix. Every message names the store and the
 * user, never the password (jetcd's own messages do not hold it either).
 */
final class OpenChecks {

    private OpenChecks() {
    }

    /**
     * Reads the prefix's range (the waiters' watches need READ too) and writes and deletes a probe key under it, on
     * the probe lease so that it goes with that lease whatever happens. The probe key has no {@code /} after the
     * prefix, so it never looks like a lock to {@code list} or {@code inspect}.
     *
     * @throws LockConfigurationException naming the missing permission, if etcd denies one
     */
    static void checkAccess(KV kv, Reachability members, EtcdSettings settings, String clientId, long probeLease) {
        String store = settings.describe();
        ByteSequence prefix = EtcdKeys.bytes(settings.prefix());
        ByteSequence probe = EtcdKeys.bytes(settings.prefix() + "~access-check-" + clientId);
        try {
            Calls.await(members, () -> kv.get(prefix, GetOption.builder().isPrefix(true).withKeysOnly(true)
                    .withLimit(1).build()), settings.timeout(), store, null, "read the keys under the lock prefix");
        } catch (LockStoreException e) {
            throw denied(settings, e, "read");
        }
        try {
            Calls.await(members, () -> kv.put(probe, EtcdKeys.bytes("access check"),
                    PutOption.builder().withLeaseId(probeLease).build()), settings.timeout(), store, null,
                    "write a probe key under the lock prefix");
            Calls.await(members, () -> kv.delete(probe), settings.timeout(), store, null,
                    "delete a probe key under the lock prefix");
        } catch (LockStoreException e) {
            throw denied(settings, e, "write");
        }
    }

    private static RuntimeException denied(EtcdSettings settings, LockStoreException failure, String access) {
        if (!mentions(failure, "permission denied")) {
            return failure;
        }
        return new LockConfigurationException(settings.describe() + ": etcd user '"
                + settings.user().orElse("(none)") + "' may not " + access + " the keys under the lock prefix '"
                + settings.prefix() + "' (etcdserver: permission denied). Grant one of its roles READWRITE on that"
                + " prefix: etcdctl role grant-permission ROLE --prefix=true readwrite " + settings.prefix()
                + " (docs/ETCD.md, \"Authentication and role permissions\")", failure);
    }

    /**
     * The open's first request failed: a refused login or a failed TLS handshake is explained, with what to check;
     * anything else is returned as it is.
     */
    static LockStoreException explain(EtcdSettings settings, LockStoreException failure) {
        String store = settings.describe();
        if (mentions(failure, "authentication failed") || mentions(failure, "invalid user id or password")) {
            return new LockStoreException(store + " refused the login of user '" + settings.user().orElse("")
                    + "' (etcdserver: authentication failed, invalid user ID or password). Check the password (from "
                    + settings.passwordSource() + ") and that the user exists (etcdctl user get NAME)", failure);
        }
        if (mentions(failure, "authentication is not enabled")) {
            return new LockStoreException(store + " has authentication off but the URI names user '"
                    + settings.user().orElse("") + "'. Enable it (etcdctl auth enable) or remove the user from the"
                    + " URI", failure);
        }
        if (mentions(failure, "user name is empty") || mentions(failure, "token")
                && settings.user().isEmpty() && mentions(failure, "user name")) {
            return new LockStoreException(store + " has authentication on: name a user, e.g. "
                    + "etcd://user:password@host:2379 (or a client certificate whose common name is a user)", failure);
        }
        if (Calls.isTlsFailure(failure)) {
            String checks = settings.tls()
                    ? ". Check that the server's certificate is signed by an authority in trustStore="
                    + settings.trustStore().map(Object::toString).orElse("(not set: the JDK's authorities)")
                    + " and names the host of the URI, and, if the server asks for client certificates"
                    + " (--client-cert-auth), that clientCert and clientKey name one signed by its --trusted-ca-file"
                    : ". The server may expect TLS: write etcds://";
            return new LockStoreException(store + ": the TLS handshake failed: " + Calls.tlsMessage(failure)
                    + checks, failure);
        }
        return failure;
    }

    private static boolean mentions(Throwable failure, String text) {
        int depth = 0;
        for (Throwable t = failure; t != null && depth < 32; t = t.getCause(), depth++) {
            if (t.getMessage() != null && t.getMessage().toLowerCase(Locale.ROOT).contains(text)) {
                return true;
            }
        }
        return false;
    }
}
