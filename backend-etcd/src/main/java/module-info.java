/** etcd locks for Locksmith ({@code etcd://}), on jetcd. */
module io.locksmith.etcd {
    requires io.locksmith;
    requires org.slf4j;
    requires jetcd.core;
    requires jetcd.api;
    requires jetcd.grpc;
    requires jetcd.common;
    requires io.grpc;
    requires io.netty.handler;

    exports io.locksmith.etcd;

    provides io.locksmith.spi.LockProviderFactory with io.locksmith.etcd.EtcdLockProviderFactory;
}
