package dev.quartermaster.store.sqlite.nativelib;

import java.io.IOException;
import java.io.InputStream;
import java.net.JarURLConnection;
import java.net.URL;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.zip.CRC32;

/**
 * A native library inside a jar (or a directory of classes), with what a copy must match: its size
 * and CRC-32. From a jar both come from the entry's header, so checking a kept copy reads the copy
 * alone, never inflates the entry. A CRC finds a copy cut short or damaged; the owner-only
 * directory it is kept in, not the CRC, keeps others from swapping it.
 *
 * @param name the library's file name ({@code libsqlitejdbc.so})
 */
record LibraryResource(URL url, String name, long size, long crc) {
  /**
   * The resource at {@code url}; its size and CRC from the jar entry, or by reading it when not in
   * a jar.
   */
  static LibraryResource of(URL url) throws IOException {
    var path = url.getPath();
    var name = path.substring(path.lastIndexOf('/') + 1);
    if (url.openConnection() instanceof JarURLConnection jar) {
      var entry = jar.getJarEntry();
      if (entry.getSize() >= 0 && entry.getCrc() >= 0) {
        return new LibraryResource(url, name, entry.getSize(), entry.getCrc());
      }
    }
    var crc = new CRC32();
    long size = 0;
    try (var in = url.openStream()) {
      var buffer = new byte[64 * 1024];
      for (int n; (n = in.read(buffer)) > 0; size += n) {
        crc.update(buffer, 0, n);
      }
    }
    return new LibraryResource(url, name, size, crc.getValue());
  }

  InputStream open() throws IOException {
    return url.openStream();
  }

  /** Whether {@code file} is a regular file (not a link) with this size and CRC. */
  boolean matches(Path file) throws IOException {
    if (!Files.isRegularFile(file, LinkOption.NOFOLLOW_LINKS) || Files.size(file) != size) {
      return false;
    }
    var crc = new CRC32();
    try (var channel = FileChannel.open(file, StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS)) {
      var buffer = ByteBuffer.allocate(64 * 1024);
      while (channel.read(buffer) > 0) {
        crc.update(buffer.flip());
        buffer.clear();
      }
    }
    return crc.getValue() == this.crc;
  }

  @Override
  public String toString() {
    return url.toString();
  }
}
