package io.locksmith.zookeeper;

import io.locksmith.HolderIdentity;
import io.locksmith.spi.HolderCodec;

import java.nio.charset.StandardCharsets;

/**
 * What a lock node stores: the owner id on the first line, then {@link HolderCodec#encode(HolderIdentity)}. The owner
 * id is also in the node's name; keeping it here too lets {@code inspect} and operators read a node alone.
 *
 * @param ownerId  the {@link io.locksmith.spi.Owner#id()} that created the node
 * @param holder   who holds or waits
 */
record LockNodeData(String ownerId, HolderIdentity holder) {

    byte[] toBytes() {
        return (ownerId + "\n" + HolderCodec.encode(holder)).getBytes(StandardCharsets.UTF_8);
    }

    /** Reads node data; data written by something else gives an identity showing the raw text. */
    static LockNodeData fromBytes(byte[] data) {
        String text = data == null ? "" : new String(data, StandardCharsets.UTF_8);
        int newline = text.indexOf('\n');
        if (newline < 0) {
            return new LockNodeData("", HolderCodec.decode(text));
        }
        return new LockNodeData(text.substring(0, newline), HolderCodec.decode(text.substring(newline + 1)));
    }
}
