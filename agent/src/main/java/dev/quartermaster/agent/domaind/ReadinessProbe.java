package dev.quartermaster.agent.domaind;

import dev.quartermaster.core.env.OutsideEnv;
import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The agent's readiness check of a domain daemon: connect to its socket and read its one line. A
 * daemon that is alive but stuck never answers; the socket's accept backlog still connects, so the
 * read is bounded by {@link #TIMEOUT}.
 */
@OutsideEnv(
    "probes a real daemon's socket with a real deadline; the simulation has its own daemons")
public final class ReadinessProbe {
  private static final java.time.Duration TIMEOUT = java.time.Duration.ofMillis(500);
  private static final int MAX_LINE = 256;

  private ReadinessProbe() {}

  public static DaemonAnswer ask(Path socket) {
    if (!Files.exists(socket)) {
      return new DaemonAnswer.Silent("no socket at " + socket + " yet");
    }
    try (var channel = SocketChannel.open(StandardProtocolFamily.UNIX);
        var selector = Selector.open()) {
      channel.connect(UnixDomainSocketAddress.of(socket));
      channel.configureBlocking(false);
      channel.register(selector, SelectionKey.OP_READ);
      var buffer = ByteBuffer.allocate(MAX_LINE);
      long deadline = System.nanoTime() + TIMEOUT.toNanos();
      while (buffer.hasRemaining()) {
        long left = (deadline - System.nanoTime()) / 1_000_000;
        if (left <= 0) {
          break; // alive but silent: not ready
        }
        selector.select(left);
        selector.selectedKeys().clear();
        int n = channel.read(buffer);
        if (n < 0 || (buffer.position() > 0 && buffer.get(buffer.position() - 1) == '\n')) {
          break;
        }
      }
      return parse(
          new String(buffer.array(), 0, buffer.position(), StandardCharsets.US_ASCII).strip());
    } catch (IOException e) {
      return new DaemonAnswer.Silent("cannot connect to " + socket + ": " + e.getMessage());
    }
  }

  static DaemonAnswer parse(String line) {
    var parts = line.split(" ");
    if (parts.length != 4 || !(parts[0].equals("READY") || parts[0].equals("STARTING"))) {
      return new DaemonAnswer.Silent(
          line.isEmpty() ? "no answer" : "unexpected answer '" + line + "'");
    }
    long pid;
    try {
      pid = Long.parseLong(parts[3]);
    } catch (NumberFormatException e) {
      return new DaemonAnswer.Silent("unexpected answer '" + line + "'");
    }
    return parts[0].equals("READY")
        ? new DaemonAnswer.Ready(parts[1], pid)
        : new DaemonAnswer.Starting(parts[1], pid);
  }
}
