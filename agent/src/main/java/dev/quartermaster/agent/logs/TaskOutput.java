package dev.quartermaster.agent.logs;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;

/**
 * One attempt's output as kept on the node: the part rotated away ({@code <task>.log.1}, if any)
 * followed by the current file, read as one sequence of bytes. Opened once per read: the channels
 * keep reading the same files even if a rotation replaces them meanwhile.
 */
final class TaskOutput implements AutoCloseable {
  private final List<FileChannel> parts = new ArrayList<>();
  private final List<Path> paths;
  private final long[] sizes;

  private TaskOutput(List<FileChannel> parts, List<Path> paths) throws IOException {
    this.parts.addAll(parts);
    this.paths = List.copyOf(paths);
    sizes = new long[parts.size()];
    for (int i = 0; i < parts.size(); i++) {
      sizes[i] = parts.get(i).size();
    }
  }

  /** The existing files of {@code paths}, in order; empty when none exists. */
  static java.util.Optional<TaskOutput> open(List<Path> paths) throws IOException {
    var channels = new ArrayList<FileChannel>();
    var found = new ArrayList<Path>();
    try {
      for (var p : paths) {
        try {
          channels.add(FileChannel.open(p, StandardOpenOption.READ));
          found.add(p);
        } catch (NoSuchFileException e) {
          // not rotated yet, or not started: the other part alone
        }
      }
      return channels.isEmpty()
          ? java.util.Optional.empty()
          : java.util.Optional.of(new TaskOutput(channels, found));
    } catch (IOException | RuntimeException e) {
      for (var c : channels) {
        c.close();
      }
      throw e;
    }
  }

  /** The length when opened. */
  long length() {
    long n = 0;
    for (var s : sizes) {
      n += s;
    }
    return n;
  }

  /** The size of {@code file} when opened; zero if it was not there. */
  long sizeAtOpen(Path file) {
    int i = paths.indexOf(file);
    return i < 0 ? 0 : sizes[i];
  }

  /** Where the last {@code lines} lines (as of opening) start; a last line without '\n' counts. */
  long startOfLastLines(long lines) throws IOException {
    long end = length();
    if (lines == 0) {
      return end;
    }
    long seen = 0;
    var buffer = ByteBuffer.allocate(8192);
    long pos = end;
    while (pos > 0) {
      int n = (int) Math.min(buffer.capacity(), pos);
      pos -= n;
      buffer.clear().limit(n);
      readFully(pos, buffer);
      for (int i = n - 1; i >= 0; i--) {
        if (buffer.get(i) == '\n' && pos + i != end - 1) {
          if (++seen == lines) {
            return pos + i + 1;
          }
        }
      }
    }
    return 0;
  }

  /** {@code offset} moved on to the start of a line (itself when it is one). */
  long lineStartFrom(long offset) throws IOException {
    if (offset <= 0) {
      return 0;
    }
    var one = ByteBuffer.allocate(8192);
    long pos = offset - 1; // the byte before: a '\n' there makes offset a line start
    long end = length();
    while (pos < end) {
      int n = (int) Math.min(one.capacity(), end - pos);
      one.clear().limit(n);
      readFully(pos, one);
      for (int i = 0; i < n; i++) {
        if (one.get(i) == '\n') {
          return pos + i + 1;
        }
      }
      pos += n;
    }
    return end;
  }

  /** Copies {@code [from, min(length, from + limit))} to {@code out}; returns the bytes copied. */
  long copy(long from, long limit, OutputStream out) throws IOException {
    long end = limit >= length() - from ? length() : from + limit; // no overflow at MAX_VALUE
    var buffer = ByteBuffer.allocate(64 * 1024);
    long pos = from;
    while (pos < end) {
      int n = (int) Math.min(buffer.capacity(), end - pos);
      buffer.clear().limit(n);
      readFully(pos, buffer);
      out.write(buffer.array(), 0, n);
      pos += n;
    }
    return end - from;
  }

  private void readFully(long logical, ByteBuffer into) throws IOException {
    long at = logical;
    int part = 0;
    while (part < sizes.length && at >= sizes[part]) {
      at -= sizes[part];
      part++;
    }
    while (into.hasRemaining()) {
      if (part >= sizes.length) {
        throw new IOException("read past the output's end at " + logical);
      }
      var channel = parts.get(part);
      int wanted = (int) Math.min(into.remaining(), sizes[part] - at);
      var slice = into.slice(into.position(), wanted);
      while (slice.hasRemaining()) {
        if (channel.read(slice, at + slice.position()) < 0) {
          // truncated under us (a rotation): what is gone reads as nothing more
          throw new IOException("the output shrank while read (rotated)");
        }
      }
      into.position(into.position() + wanted);
      at = 0;
      part++;
    }
  }

  @Override
  public void close() throws IOException {
    for (var c : parts) {
      c.close();
    }
  }
}
