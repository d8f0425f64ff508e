package dev.quartermaster.core.files;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class OwnerOnlyTest {
  @TempDir Path tmp;

  @Test
  void createsADirectoryWith0700AndItsMissingParents() throws Exception {
    var dir = tmp.resolve("a/b/data");

    assertThat(OwnerOnly.directory(dir)).isEmpty();

    assertThat(mode(dir)).isEqualTo("rwx------");
  }

  @Test
  void tightensAnExistingDirectoryAndSaysWhatItChanged() throws Exception {
    var dir =
        Files.createDirectory(
            tmp.resolve("data"),
            PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwxr-xr-x")));

    var changed = OwnerOnly.directory(dir);

    assertThat(changed)
        .hasValueSatisfying(t -> assertThat(t.toString()).endsWith("data: rwxr-xr-x -> rwx------"));
    assertThat(mode(dir)).isEqualTo("rwx------");
    assertThat(OwnerOnly.directory(dir)).isEmpty();
  }

  @Test
  void tightensAFileToOwnerOnlyButNeverWidensIt() throws Exception {
    var open = Files.writeString(tmp.resolve("store.db"), "x");
    Files.setPosixFilePermissions(open, PosixFilePermissions.fromString("rw-r--r--"));
    var readOnly = Files.writeString(tmp.resolve("token"), "x");
    Files.setPosixFilePermissions(readOnly, PosixFilePermissions.fromString("r--------"));

    assertThat(OwnerOnly.file(open)).isPresent();
    assertThat(OwnerOnly.file(readOnly)).isEmpty();
    assertThat(OwnerOnly.file(tmp.resolve("absent"))).isEmpty();

    assertThat(mode(open)).isEqualTo("rw-------");
    assertThat(mode(readOnly)).isEqualTo("r--------");
  }

  @Test
  void createsAFileWith0600WhateverTheUmask() throws Exception {
    var log = tmp.resolve("task.log");

    OwnerOnly.createFile(log);

    assertThat(mode(log)).isEqualTo("rw-------");
  }

  private static String mode(Path p) throws Exception {
    return PosixFilePermissions.toString(Files.getPosixFilePermissions(p));
  }
}
