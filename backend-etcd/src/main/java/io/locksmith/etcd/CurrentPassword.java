package io.locksmith.etcd;

import io.etcd.jetcd.api.AuthenticateRequest;
import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.ClientInterceptor;
import io.grpc.ForwardingClientCall;
import io.grpc.MethodDescriptor;
import io.locksmith.spi.PasswordFile;

/**
 * Puts the password file's current content into each login ({@code Authenticate}) jetcd sends. jetcd keeps the
 * password it was built with and logs in again with it whenever etcd refuses the token (expired, or voided by a
 * password change); this interceptor, installed with {@code ClientBuilder.authInterceptors} (which jetcd applies to
 * its login calls only), makes that re-login read the file instead, so a rotated secret is used without a restart.
 */
final class CurrentPassword implements ClientInterceptor {

    private final PasswordFile file;

    CurrentPassword(PasswordFile file) {
        this.file = file;
    }

    @Override
    public <Q, A> ClientCall<Q, A> interceptCall(MethodDescriptor<Q, A> method, CallOptions options, Channel next) {
        return new ForwardingClientCall.SimpleForwardingClientCall<>(next.newCall(method, options)) {
            @Override
            @SuppressWarnings("unchecked")
            public void sendMessage(Q message) {
                if (message instanceof AuthenticateRequest login) {
                    // An unreadable file fails this login (the caller's request then fails naming the file), rather
                    // than sending a password the operator has replaced.
                    message = (Q) login.toBuilder().setPassword(file.read()).build();
                }
                super.sendMessage(message);
            }
        };
    }
}
