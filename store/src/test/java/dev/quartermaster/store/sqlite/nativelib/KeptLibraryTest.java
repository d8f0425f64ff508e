package dev.quartermaster.store.sqlite.nativelib;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quartermaster.core.files.OwnerOnly;
import dev.quartermaster.store.sqlite.nativelib.KeptLibrary.Outcome;
import java.io.IOException;
import java.io.InputStream;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sqlite.SQLiteJDBCLoader;
import org.sqlite.util.LibraryLoaderUtil;

/** sqlite-jdbc's own library, kept in a directory of the test's. */
class KeptLibraryTest {
  @TempDir Path dir;

  private LibraryResource sqlite;
  private byte[] bytes;

  @BeforeEach
  void findTheLibrary() throws IOException {
    var url =
        SQLiteJDBCLoader.class.getResource(
            LibraryLoaderUtil.getNativeLibResourcePath()
                + "/"
                + LibraryLoaderUtil.getNativeLibName());
    assertThat(url).as("sqlite-jdbc has a library for this platform").isNotNull();
    sqlite = LibraryResource.of(url);
    try (InputStream in = url.openStream()) {
      bytes = in.readAllBytes();
    }
  }

  private Path kept() {
    return dir.resolve("sqlite-x").resolve(LibraryLoaderUtil.getNativeLibName());
  }

  @Test
  void isExtractedOnceThenReusedWithoutWritingAnything() throws IOException {
    var first = KeptLibrary.keep(sqlite, dir.resolve("sqlite-x"));
    assertThat(first).isEqualTo(new KeptLibrary(kept(), Outcome.EXTRACTED));
    assertThat(Files.readAllBytes(kept())).isEqualTo(bytes);
    assertThat(Files.getPosixFilePermissions(kept().getParent())).isEqualTo(OwnerOnly.DIRECTORY);
    var before = Files.readAttributes(kept(), BasicFileAttributes.class);

    var second = KeptLibrary.keep(sqlite, dir.resolve("sqlite-x"));
    assertThat(second).isEqualTo(new KeptLibrary(kept(), Outcome.REUSED));
    var after = Files.readAttributes(kept(), BasicFileAttributes.class);
    assertThat(after.fileKey())
        .as("the same file (inode), not a new one")
        .isEqualTo(before.fileKey());
    assertThat(after.lastModifiedTime()).isEqualTo(before.lastModifiedTime());
    try (var listing = Files.list(kept().getParent())) {
      assertThat(listing).as("no temp file left beside it").containsExactly(kept());
    }
  }

  @Test
  void aTruncatedCopyIsReplaced() throws IOException {
    KeptLibrary.keep(sqlite, dir.resolve("sqlite-x"));
    try (var channel = FileChannel.open(kept(), StandardOpenOption.WRITE)) {
      channel.truncate(bytes.length / 2); // as a full disk or a killed copy leaves it
    }
    assertThat(KeptLibrary.keep(sqlite, dir.resolve("sqlite-x")).outcome())
        .isEqualTo(Outcome.REPLACED);
    assertThat(Files.readAllBytes(kept())).isEqualTo(bytes);
  }

  @Test
  void aDamagedCopyOfTheRightSizeIsReplaced() throws IOException {
    KeptLibrary.keep(sqlite, dir.resolve("sqlite-x"));
    var damaged = bytes.clone();
    damaged[damaged.length / 2] ^= 0x40;
    Files.write(kept(), damaged);
    assertThat(KeptLibrary.keep(sqlite, dir.resolve("sqlite-x")).outcome())
        .isEqualTo(Outcome.REPLACED);
    assertThat(Files.readAllBytes(kept())).isEqualTo(bytes);
  }

  /** Outside a jar there is no entry header: size and CRC come from reading the resource. */
  @Test
  void aLibraryOutsideAJarIsCheckedByItsContent() throws IOException {
    var source = Files.write(dir.resolve("libfake.so"), new byte[] {1, 2, 3, 4, 5});
    var fake = LibraryResource.of(source.toUri().toURL());
    assertThat(fake.name()).isEqualTo("libfake.so");
    assertThat(fake.size()).isEqualTo(5);
    assertThat(KeptLibrary.keep(fake, dir.resolve("kept")).outcome()).isEqualTo(Outcome.EXTRACTED);
    assertThat(KeptLibrary.keep(fake, dir.resolve("kept")).outcome()).isEqualTo(Outcome.REUSED);
    Files.write(dir.resolve("kept/libfake.so"), new byte[] {1, 2, 3, 4, 6});
    assertThat(KeptLibrary.keep(fake, dir.resolve("kept")).outcome()).isEqualTo(Outcome.REPLACED);
  }
}
