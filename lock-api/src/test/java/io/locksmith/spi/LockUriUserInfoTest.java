package io.locksmith.spi;

import io.locksmith.LockConfigurationException;
import org.junit.jupiter.api.Test;

import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** User and password of a store URI's user info, read once here for every backend. */
class LockUriUserInfoTest {

    @Test
    void userAndPasswordSplitAtTheFirstColonAndArePercentDecoded() {
        LockUri uri = LockUri.parse("postgres://app:s%40cr:et@db:5432/locks");

        assertEquals(Optional.of("app"), uri.user());
        assertEquals(Optional.of("s@cr:et"), uri.password());
    }

    @Test
    void aLoneUserHasNoPassword() {
        LockUri uri = LockUri.parse("postgres://app@db/locks");

        assertEquals(Optional.of("app"), uri.user());
        assertTrue(uri.password().isEmpty());
    }

    @Test
    void withoutUserInfoThereIsNeither() {
        LockUri uri = LockUri.parse("etcd://h:2379");

        assertFalse(uri.user().isPresent());
        assertFalse(uri.password().isPresent());
    }

    @Test
    void aPasswordWithoutAUserIsRefusedWithoutShowingThePassword() {
        LockUri uri = LockUri.parse("etcd://:secret@h:2379");

        LockConfigurationException e = assertThrows(LockConfigurationException.class, uri::user);
        assertTrue(e.getMessage().contains("without a user name"), e.getMessage());
        assertFalse(e.getMessage().contains("secret"), e.getMessage());
        assertEquals(Optional.of("secret"), uri.password());
    }
}
