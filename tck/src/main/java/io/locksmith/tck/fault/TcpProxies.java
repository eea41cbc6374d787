package io.locksmith.tck.fault;

import java.util.List;
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
