package io.locksmith.tck.fault;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * One {@link TcpProxy} in front of every member of a multi-node store (an etcd cluster, a ZooKeeper ensemble,
 * RedLock's masters), driven as one: a client that reaches the store only through them is cut off, loses its
 * next reply or is reset whichever member it talks to.
 */
public final class TcpProxies implements AutoCloseable {

    private final List<TcpProxy> proxies;

    private TcpProxies(List<TcpProxy> proxies) {
        this.proxies = proxies;
    }

    /**
     * Starts one proxy per {@code host:port}, in that order.
     *
     * @throws IllegalArgumentException if the list is empty or an address is not {@code host:port}
     */
    public static TcpProxies start(List<String> addresses) {
        Objects.requireNonNull(addresses, "addresses cannot be null");
        if (addresses.isEmpty()) {
            throw new IllegalArgumentException("no address to proxy");
        }
        List<TcpProxy> started = new java.util.ArrayList<>();
        try {
            for (String address : addresses) {
                int colon = address.lastIndexOf(':');
                if (colon < 0) {
                    throw new IllegalArgumentException("a proxied address must be host:port, was '" + address + "'");
                }
                started.add(TcpProxy.start(address.substring(0, colon), Integer.parseInt(address.substring(colon + 1))));
            }
        } catch (RuntimeException e) {
            started.forEach(TcpProxy::close);
            throw e;
        }
        return new TcpProxies(List.copyOf(started));
    }

    /** The proxies, in the order of the addresses they forward to. */
    public List<TcpProxy> list() {
        return proxies;
    }

    /** {@link #addressMap(List)} of these proxies. */
    public Map<String, String> addressMap() {
        return addressMap(proxies);
    }

    /**
     * The address each proxied member is reached at through its proxy: {@code host:port} of the member to
     * {@code host:port} of its proxy, in the order of {@code proxies}. For a client that learns the members from the
     * store (a member list, the addresses a Sentinel announces) and would connect to them directly, bypassing the
     * proxies: give it this map where it takes one (Redis's {@code natMap}, a Hazelcast address translator), or turn
     * the discovery off (Curator's ensemble tracker).
     *
     * @throws NullPointerException if {@code proxies} is null
     */
    public static Map<String, String> addressMap(List<TcpProxy> proxies) {
        Map<String, String> map = new LinkedHashMap<>();
        for (TcpProxy proxy : proxies) {
            map.put(proxy.target(), proxy.address());
        }
        return map;
    }

    /** {@link #rewrite(List, String)} with these proxies. */
    public String rewrite(String text) {
        return rewrite(proxies, text);
    }

    /**
     * {@code text} (a URI, a connect string) with every proxied member's {@code host:port} replaced by its proxy's:
     * the hook {@code uriThrough(List<TcpProxy> proxies)} is often {@code TcpProxies.rewrite(proxies, uri)}.
     *
     * @throws NullPointerException if an argument is null
     */
    public static String rewrite(List<TcpProxy> proxies, String text) {
        Objects.requireNonNull(text, "text cannot be null");
        Map<String, String> map = addressMap(proxies);
        if (map.isEmpty()) {
            return text;
        }
        // One pass, whole addresses only: a proxy's own address must not be rewritten again, nor 127.0.0.1:638 inside
        // 127.0.0.1:6380.
        String alternatives = map.keySet().stream().map(java.util.regex.Pattern::quote)
                .collect(java.util.stream.Collectors.joining("|"));
        java.util.regex.Matcher matcher = java.util.regex.Pattern.compile("(?<![\\w.])(" + alternatives + ")(?!\\d)")
                .matcher(text);
        StringBuilder result = new StringBuilder();
        while (matcher.find()) {
            matcher.appendReplacement(result, java.util.regex.Matcher.quoteReplacement(map.get(matcher.group(1))));
        }
        matcher.appendTail(result);
        return result.toString();
    }

    /** {@link TcpProxy#blackhole()} on every proxy. */
    public void blackhole() {
        proxies.forEach(TcpProxy::blackhole);
    }

    /** {@link TcpProxy#dropNextReplies(int)} on every proxy: the next reply of whichever member answers is lost. */
    public void dropNextReplies(int count) {
        proxies.forEach(proxy -> proxy.dropNextReplies(count));
    }

    /** {@link TcpProxy#resetAll()} on every proxy. */
    public void resetAll() {
        proxies.forEach(TcpProxy::resetAll);
    }

    /** {@link TcpProxy#holdRequests()} on every proxy. */
    public void holdRequests() {
        proxies.forEach(TcpProxy::holdRequests);
    }

    /**
     * {@link TcpProxy#holdRequestsAfterNextReply()} across the proxies: the client's next exchange goes through,
     * whichever member it is with, and from its reply on every proxy keeps back what the client sends, so that a client
     * that moves to another member (a reconnect, a retry) is held back there too instead of getting a fresh exchange
     * through.
     */
    public void holdRequestsAfterNextReply() {
        Runnable holdAll = () -> proxies.forEach(TcpProxy::holdRequests);
        proxies.forEach(proxy -> proxy.holdRequestsAfterNextReply(holdAll));
    }

    /** {@link TcpProxy#releaseRequests()} on every proxy. */
    public void releaseRequests() {
        proxies.forEach(TcpProxy::releaseRequests);
    }

    /** The request chunks kept back so far, summed over the proxies. */
    public long heldRequests() {
        return proxies.stream().mapToLong(TcpProxy::heldRequests).sum();
    }

    /** The chunks forwarded so far, summed over the proxies. */
    public long forwardedChunks() {
        return proxies.stream().mapToLong(TcpProxy::forwardedChunks).sum();
    }

    /** {@link TcpProxy#heal()} on every proxy. */
    public void heal() {
        proxies.forEach(TcpProxy::heal);
    }

    /** The replies dropped so far, summed over the proxies. */
    public long droppedReplies() {
        return proxies.stream().mapToLong(TcpProxy::droppedReplies).sum();
    }

    @Override
    public void close() {
        proxies.forEach(TcpProxy::close);
    }

    @Override
    public String toString() {
        return "TcpProxies" + proxies;
    }
}
