package io.locksmith.lockctl.doctor;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.ClientBuilder;
import io.etcd.jetcd.cluster.Member;
import io.etcd.jetcd.maintenance.StatusResponse;
import io.locksmith.LockStoreException;
import io.locksmith.spi.LockUri;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * etcd checks, read-only, with jetcd: TLS and authentication (and whether the user may read the lock prefix), members,
 * each endpoint's status (leader, raft index, alarms) and round trip, and whether the endpoints agree on one leader.
 * The URI's {@code trustStore}, {@code clientCert}, {@code clientKey}, {@code passwordEnv} and {@code passwordFile} are read as the etcd
 * backend reads them (docs/ETCD.md).
 */
final class EtcdDoctor implements StoreDoctor {

    private static final int DEFAULT_PORT = 2379;

    @Override
    public Set<String> schemes() {
        return Set.of("etcd", "etcds");
    }

    @Override
    public List<Finding> examine(LockUri uri, Duration timeout) {
        String scheme = uri.scheme().equals("etcds") || uri.parameter("ssl").map(Boolean::parseBoolean).orElse(false)
                ? "https://" : "http://";
        List<String> endpoints = new ArrayList<>();
        for (LockUri.HostPort host : uri.hosts(DEFAULT_PORT)) {
            endpoints.add(scheme + host);
        }
        ClientBuilder builder = Client.builder().endpoints(endpoints.toArray(String[]::new)).connectTimeout(timeout)
                .retryMaxAttempts(1).retryMaxDuration(timeout);
        java.util.Optional<String> user = uri.user().filter(name -> !name.isEmpty());
        java.util.Optional<String> password = io.locksmith.spi.PasswordFile.of(uri)
                .map(io.locksmith.spi.PasswordFile::read)
                .or(() -> uri.parameter("passwordEnv").map(String::strip).map(System::getenv))
                .or(uri::password);
        user.ifPresent(name -> builder.user(ByteSequence.from(name, StandardCharsets.UTF_8)));
        password.ifPresent(secret -> builder.password(ByteSequence.from(secret, StandardCharsets.UTF_8)));
        boolean tls = scheme.equals("https://");
        java.util.Optional<String> trustStore = uri.parameter("trustStore").map(String::strip);
        java.util.Optional<String> clientCert = uri.parameter("clientCert").map(String::strip);
        java.util.Optional<String> clientKey = uri.parameter("clientKey").map(String::strip);
        if (tls) {
            try {
                builder.sslContext(ssl -> {
                    trustStore.ifPresent(file -> ssl.trustManager(new java.io.File(file)));
                    if (clientCert.isPresent() && clientKey.isPresent()) {
                        ssl.keyManager(new java.io.File(clientCert.get()), new java.io.File(clientKey.get()));
                    }
                });
            } catch (javax.net.ssl.SSLException | IllegalArgumentException e) {
                throw new io.locksmith.LockConfigurationException("cannot read the TLS files of the URI (trustStore, "
                        + "clientCert, clientKey): " + rootMessage(e), e);
            }
        }
        String prefix = uri.parameter("prefix").map(String::strip).filter(p -> !p.isEmpty())
                .map(p -> p.endsWith("/") ? p : p + "/").orElse("/locksmith/");
        List<Finding> findings = new ArrayList<>();
        findings.add(tlsFinding(tls, trustStore, clientCert.isPresent() && clientKey.isPresent()));
        try (Client client = builder.build()) {
            List<Member> members;
            long start = System.nanoTime();
            try {
                members = client.getClusterClient().listMember().get(timeout.toMillis(), TimeUnit.MILLISECONDS).getMembers();
            } catch (ExecutionException e) {
                throw new LockStoreException("cannot reach etcd at " + String.join(",", endpoints) + ": "
                        + rootMessage(e), e);
            } catch (TimeoutException e) {
                throw new LockStoreException("cannot reach etcd at " + String.join(",", endpoints) + ": no answer within "
                        + timeout.toMillis() + " ms", e);
            }
            findings.add(Finding.ok("etcd connect", "member list in " + Millis.of(System.nanoTime() - start)));
            findings.add(authFinding(client, user, prefix, timeout));
            findings.add(membersFinding(members));
            Set<Long> leaders = new HashSet<>();
            for (String endpoint : endpoints) {
                findings.add(status(client, endpoint, timeout, leaders));
                findings.add(preVote(endpoint, timeout, trustStore));
            }
            findings.add(leaderFinding(leaders));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new LockStoreException("interrupted while asking etcd", e);
        }
        return findings;
    }

    static Finding tlsFinding(boolean tls, java.util.Optional<String> trustStore, boolean clientCertificate) {
        if (!tls) {
            return Finding.warn("etcd TLS", "off (etcd://): requests, the password at login and the auth token cross"
                    + " the network in clear text", "on a network others reach, serve clients over TLS and use"
                    + " etcds://host:2379?trustStore=/path/ca.pem (docs/ETCD.md, TLS)");
        }
        return Finding.ok("etcd TLS", "on (etcds://), server certificate checked against "
                + trustStore.map(file -> "trustStore=" + file).orElse("the JDK's authorities")
                + (clientCertificate ? ", with a client certificate" : ", no client certificate"));
    }

    /**
     * Whether etcd checks who asks: a read of the lock prefix (read-only, one key at most) as the URI's user, or with
     * no user at all. A read without a user that succeeds means authentication is off (or, with a client certificate,
     * that its common name is a user etcd accepts).
     */
    private static Finding authFinding(Client client, java.util.Optional<String> user, String prefix,
                                       Duration timeout) throws InterruptedException {
        String check = "etcd authentication";
        try {
            client.getKVClient().get(ByteSequence.from(prefix, StandardCharsets.UTF_8),
                    io.etcd.jetcd.options.GetOption.builder().isPrefix(true).withKeysOnly(true).withLimit(1).build())
                    .get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            String message = rootMessage(e);
            if (user.isEmpty() && (message.contains("user name is empty") || message.contains("permission denied")
                    || message.contains("user name not found"))) {
                return Finding.fail(check, "on, and this URI names no user: etcd refused a read of " + prefix + " ("
                        + message + ")", "name the lock user: etcds://user:password@host:2379 or passwordEnv=VARIABLE");
            }
            if (message.contains("permission denied")) {
                return Finding.fail(check, "on; user '" + user.orElse("") + "' may not read the lock prefix " + prefix,
                        "etcdctl role grant-permission ROLE --prefix=true readwrite " + prefix
                                + " (docs/ETCD.md, Authentication and role permissions)");
            }
            return Finding.warn(check, "not checked: a read of " + prefix + " failed: " + message, "");
        } catch (java.util.concurrent.TimeoutException e) {
            return Finding.warn(check, "not checked: a read of " + prefix + " got no answer within "
                    + timeout.toMillis() + " ms", "");
        }
        if (user.isPresent()) {
            return Finding.ok(check, "on: logged in as user '" + user.get() + "', which may read the lock prefix "
                    + prefix);
        }
        return Finding.warn(check, "off, or a client certificate's common name is a user: a read of " + prefix
                + " without a password succeeded, so any client that reaches the members may take, delete or extend"
                + " every lock", "enable authentication with a role limited to the lock prefix (docs/ETCD.md,"
                + " Authentication and role permissions; docs/SECURITY.md)");
    }

    private static Finding membersFinding(List<Member> members) {
        List<String> names = new ArrayList<>();
        int learners = 0;
        for (Member member : members) {
            names.add((member.getName().isEmpty() ? Long.toHexString(member.getId()) : member.getName())
                    + (member.isLearner() ? " (learner)" : ""));
            learners += member.isLearner() ? 1 : 0;
        }
        int voters = members.size() - learners;
        String detail = members.size() + " member(s): " + String.join(", ", names);
        if (voters == 1) {
            return Finding.warn("etcd members", detail + ": a single voting member has no fault tolerance",
                    "run 3 or 5 members for production locks");
        }
        if (voters % 2 == 0) {
            return Finding.warn("etcd members", detail + ": an even cluster tolerates no more failures than one member fewer",
                    "run an odd number of members (3 or 5)");
        }
        return Finding.ok("etcd members", detail + ", tolerates " + (voters - 1) / 2 + " failure(s)");
    }

    private static Finding status(Client client, String endpoint, Duration timeout, Set<Long> leaders)
            throws InterruptedException {
        String check = "etcd " + endpoint + " status";
        StatusResponse status;
        long start;
        try {
            // The first call pays for the connection to this endpoint; the second shows the round trip.
            client.getMaintenanceClient().statusMember(endpoint).get(timeout.toMillis(), TimeUnit.MILLISECONDS);
            start = System.nanoTime();
            status = client.getMaintenanceClient().statusMember(endpoint).get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            return Finding.fail(check, "no answer: " + rootMessage(e), "start the member or fix the address");
        } catch (TimeoutException e) {
            return Finding.fail(check, "no answer within " + timeout.toMillis() + " ms", "start the member or fix the address");
        }
        long elapsed = System.nanoTime() - start;
        leaders.add(status.getLeader());
        String detail = "version " + status.getVersion() + ", leader " + Long.toHexString(status.getLeader())
                + ", raft term " + status.getRaftTerm() + " index " + status.getRaftIndex() + ", db "
                + status.getDbSize() / 1024 + " KiB, round trip " + Millis.of(elapsed);
        if (status.getLeader() == 0) {
            return Finding.fail(check, detail + ": no leader, locks cannot be taken", "bring a majority of members back");
        }
        if (!status.getErrorList().isEmpty()) {
            return Finding.fail(check, detail + "; errors: " + String.join("; ", status.getErrorList()),
                    "clear the alarm (e.g. NOSPACE: compact, defragment, then 'alarm disarm')");
        }
        if (elapsed > 100_000_000L) {
            return Finding.warn(check, detail, "slow answers: check the members' disks (fsync latency) and network");
        }
        return Finding.ok(check, detail);
    }

    /**
     * Whether the member runs with Raft pre-vote, read from its command line in {@code /debug/vars} (etcd
     * exposes the setting nowhere else). Without pre-vote, a member that comes back from a partition forces an
     * election with the terms it counted up alone, and holders on the healthy side can miss a renewal.
     */
    private static Finding preVote(String endpoint, Duration timeout, java.util.Optional<String> trustStore)
            throws InterruptedException {
        String check = "etcd " + endpoint + " pre-vote";
        try {
            HttpClient.Builder client = HttpClient.newBuilder().connectTimeout(timeout);
            if (trustStore.isPresent()) {
                client.sslContext(trusting(trustStore.get()));
            }
            HttpClient http = client.build();
            HttpResponse<String> vars = http.send(HttpRequest.newBuilder(URI.create(endpoint + "/debug/vars"))
                    .timeout(timeout).GET().build(), HttpResponse.BodyHandlers.ofString());
            HttpResponse<String> version = http.send(HttpRequest.newBuilder(URI.create(endpoint + "/version"))
                    .timeout(timeout).GET().build(), HttpResponse.BodyHandlers.ofString());
            if (vars.statusCode() != 200) {
                return Finding.warn(check, "/debug/vars answered HTTP " + vars.statusCode() + "; pre-vote not checked",
                        PRE_VOTE_FIX);
            }
            return preVoteFinding(check, version.body(), vars.body());
        } catch (java.io.IOException | IllegalArgumentException e) {
            return Finding.warn(check, "could not read /debug/vars (" + rootMessage(e) + "); pre-vote not checked",
                    PRE_VOTE_FIX);
        }
    }

    /**
     * TLS that trusts the authorities in a PEM file, for the JDK's HTTP client. A member that requires client
     * certificates refuses it: pre-vote is then not checked (a WARN says why).
     */
    private static javax.net.ssl.SSLContext trusting(String pemFile) throws java.io.IOException {
        try (java.io.InputStream in = java.nio.file.Files.newInputStream(java.nio.file.Path.of(pemFile))) {
            java.security.KeyStore store = java.security.KeyStore.getInstance(java.security.KeyStore.getDefaultType());
            store.load(null, null);
            int i = 0;
            for (java.security.cert.Certificate cert
                    : java.security.cert.CertificateFactory.getInstance("X.509").generateCertificates(in)) {
                store.setCertificateEntry("ca-" + i++, cert);
            }
            javax.net.ssl.TrustManagerFactory trust = javax.net.ssl.TrustManagerFactory.getInstance(
                    javax.net.ssl.TrustManagerFactory.getDefaultAlgorithm());
            trust.init(store);
            javax.net.ssl.SSLContext context = javax.net.ssl.SSLContext.getInstance("TLS");
            context.init(null, trust.getTrustManagers(), null);
            return context;
        } catch (java.security.GeneralSecurityException e) {
            throw new java.io.IOException("cannot read the authorities in " + pemFile + ": " + e.getMessage(), e);
        }
    }

    static final String PRE_VOTE_FIX = "run every member with --pre-vote=true (etcd 3.4 defaults to false)";

    /** The pre-vote verdict from a member's {@code /version} and {@code /debug/vars} answers. */
    static Finding preVoteFinding(String check, String versionJson, String debugVars) {
        int cmdline = debugVars.indexOf("\"cmdline\"");
        int end = cmdline < 0 ? -1 : debugVars.indexOf(']', cmdline);
        if (end < 0) {
            return Finding.warn(check, "no command line in /debug/vars; pre-vote not checked", PRE_VOTE_FIX);
        }
        List<String> args = new ArrayList<>();
        java.util.regex.Matcher arg = java.util.regex.Pattern.compile("\"((?:[^\"\\\\]|\\\\.)*)\"")
                .matcher(debugVars.substring(debugVars.indexOf('[', cmdline) + 1, end));
        while (arg.find()) {
            args.add(arg.group(1));
        }
        Boolean onCommandLine = null;
        boolean configFile = false;
        for (String a : args) {
            String flag = a.replaceFirst("^--?", "-");
            if (flag.equals("-pre-vote") || flag.equals("-pre-vote=true")) {
                onCommandLine = true;
            } else if (flag.equals("-pre-vote=false")) {
                onCommandLine = false;
            } else if (flag.startsWith("-config-file")) {
                configFile = true;
            }
        }
        java.util.regex.Matcher server = java.util.regex.Pattern.compile("\"etcdserver\"\\s*:\\s*\"(\\d+)\\.(\\d+)")
                .matcher(versionJson);
        boolean defaultOn = server.find() && (Integer.parseInt(server.group(1)) > 3
                || Integer.parseInt(server.group(1)) == 3 && Integer.parseInt(server.group(2)) >= 5);
        if (Boolean.TRUE.equals(onCommandLine)) {
            return Finding.ok(check, "--pre-vote=true on the command line");
        }
        if (Boolean.FALSE.equals(onCommandLine)) {
            return Finding.warn(check, "--pre-vote=false on the command line: a member returning from a partition"
                    + " forces an election", PRE_VOTE_FIX);
        }
        if (defaultOn) {
            return Finding.ok(check, "not on the command line; on by default in this etcd version");
        }
        return Finding.warn(check, "not on the command line" + (configFile ? " (a --config-file may set it)" : "")
                + ", and off by default before etcd 3.5 (unless ETCD_PRE_VOTE=true is set): a member returning from"
                + " a partition forces an election", PRE_VOTE_FIX);
    }

    private static Finding leaderFinding(Set<Long> leaders) {
        leaders.remove(0L);
        if (leaders.size() > 1) {
            return Finding.fail("etcd leader", "endpoints name different leaders " + leaders
                    + ": the URI mixes clusters, or a partition", "list the endpoints of one cluster only");
        }
        if (leaders.isEmpty()) {
            return Finding.fail("etcd leader", "no endpoint knows a leader", "bring a majority of members back");
        }
        return Finding.ok("etcd leader", "all answering endpoints agree on leader " + Long.toHexString(leaders.iterator().next()));
    }

    private static String rootMessage(Throwable e) {
        Throwable root = e;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        return root.getMessage() == null ? root.toString() : root.getMessage();
    }
}
