package dev.quartermaster.cli.warm;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * A command's standard output and error on the warm client's socket, as frames the launcher reads
 * with bash and {@code head -c}: {@code o LEN\n} or {@code e LEN\n} and that many bytes, then
 * {@code x EXIT\n}. What the command writes is held and sent in the order written, by {@link #send}
 * (every 50 ms while the command runs) and at the end: a table's lines go in one frame, since the
 * launcher starts a process per frame, and a command that waits still shows its progress. Once the
 * launcher is gone (Ctrl-C) writes are dropped and the command runs to its end.
 */
final class Frames {
  private final OutputStream socket;
  private final List<Chunk> pending = new ArrayList<>(); // guarded by this
  private boolean broken; // guarded by this

  private record Chunk(char stream, ByteArrayOutputStream bytes) {}

  Frames(OutputStream socket) {
    this.socket = socket;
  }

  /** Standard output, held until sent. */
  OutputStream out() {
    return stream('o');
  }

  /** Standard error, held until sent. */
  OutputStream err() {
    return stream('e');
  }

  /** Sends what was written since the last send, in the order written. */
  synchronized void send() {
    if (!broken && !pending.isEmpty()) {
      try {
        for (var chunk : pending) {
          header(chunk.stream() + " " + chunk.bytes().size());
          chunk.bytes().writeTo(socket);
        }
        socket.flush();
      } catch (IOException e) {
        broken = true;
      }
    }
    pending.clear();
  }

  /** Sends what is left and the exit code: the command is over. */
  synchronized void end(int exit) {
    send();
    if (!broken) {
      try {
        header("x " + exit);
        socket.flush();
      } catch (IOException e) {
        broken = true;
      }
    }
  }

  private void header(String line) throws IOException {
    socket.write((line + "\n").getBytes(StandardCharsets.US_ASCII));
  }

  private synchronized void write(char stream, byte[] bytes, int offset, int length) {
    if (broken || length == 0) {
      return;
    }
    if (pending.isEmpty() || pending.getLast().stream() != stream) {
      pending.add(new Chunk(stream, new ByteArrayOutputStream()));
    }
    pending.getLast().bytes().write(bytes, offset, length);
  }

  private OutputStream stream(char stream) {
    return new OutputStream() {
      @Override
      public void write(int b) {
        Frames.this.write(stream, new byte[] {(byte) b}, 0, 1);
      }

      @Override
      public void write(byte[] bytes, int offset, int length) {
        Frames.this.write(stream, bytes, offset, length);
      }
    };
  }
}
