package io.locksmith.spi;

import io.locksmith.LockConfigurationException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class PasswordFileTest {

    @TempDir
    Path dir;

    @Test
    void readsTheFileEachTimeWithoutOneTrailingLineBreak() throws Exception {
        Path file = dir.resolve("pw");
        Files.writeString(file, "first\n");
        LockUri uri = LockUri.parse("etcd://app@host?passwordFile=" + file);
        PasswordFile password = PasswordFile.of(uri).orElseThrow();
        assertTrue(uri.unreadParameters().isEmpty());
        assertEquals("first", password.read());
        Files.writeString(file, "second\r\n");
        assertEquals("second", password.read());
        Files.writeString(file, " spaced \n\n");
        assertEquals(" spaced \n", password.read(), "only one line break is not part of the password");
        assertEquals("passwordFile=" + file, password.toString());
    }

    @Test
    void noParameterIsEmpty() {
        assertTrue(PasswordFile.of(LockUri.parse("etcd://app:pw@host")).isEmpty());
    }

    @Test
    void refusedWithAPasswordInTheUriOrPasswordEnv() throws Exception {
        Path file = dir.resolve("pw");
        Files.writeString(file, "secret-in-file");
        LockConfigurationException both = assertThrows(LockConfigurationException.class,
                () -> PasswordFile.of(LockUri.parse("redis://app:uri-secret@host?passwordFile=" + file)));
        assertTrue(both.getMessage().contains("has a password and parameter 'passwordFile'"), both.getMessage());
        assertFalse(both.getMessage().contains("uri-secret"), both.getMessage());
        LockConfigurationException env = assertThrows(LockConfigurationException.class,
                () -> PasswordFile.of(LockUri.parse("postgres://app@host/db?passwordEnv=PW&passwordFile=" + file)));
        assertTrue(env.getMessage().contains("'passwordEnv' and 'passwordFile'"), env.getMessage());
    }

    @Test
    void missingOrEmptyFileIsNamedNeverItsContent() throws Exception {
        Path missing = dir.resolve("missing");
        LockConfigurationException gone = assertThrows(LockConfigurationException.class,
                () -> PasswordFile.of(LockUri.parse("etcd://app@host?passwordFile=" + missing)));
        assertTrue(gone.getMessage().contains("cannot read the password file '" + missing + "'"), gone.getMessage());
        Path empty = dir.resolve("empty");
        Files.writeString(empty, "\n");
        LockConfigurationException blank = assertThrows(LockConfigurationException.class,
                () -> PasswordFile.of(LockUri.parse("etcd://app@host?passwordFile=" + empty)));
        assertTrue(blank.getMessage().contains("the password file '" + empty + "' (passwordFile) is empty"),
                blank.getMessage());
        Path file = dir.resolve("later-removed");
        Files.writeString(file, "Secret-Value");
        PasswordFile password = PasswordFile.of(LockUri.parse("etcd://app@host?passwordFile=" + file)).orElseThrow();
        Files.writeString(file, "");
        LockConfigurationException emptied = assertThrows(LockConfigurationException.class, password::read);
        assertTrue(emptied.getMessage().contains(file.toString()), emptied.getMessage());
        assertThrows(LockConfigurationException.class,
                () -> PasswordFile.of(LockUri.parse("etcd://app@host?passwordFile=")));
    }
}
