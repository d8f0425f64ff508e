package dev.quartermaster.core.net;

import dev.quartermaster.core.env.OutsideEnv;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.ThreadLocalRandom;

/**
 * A loopback port free to listen on, for servers a test or bench starts as separate processes (etcd
 * members, {@code qm server}s) and must name before they start. Chosen below the kernel's ephemeral
 * range ({@code net.ipv4.ip_local_port_range}): a port the kernel handed out for {@code bind(0)}
 * can be handed out again, as the source port of any outgoing connection, in the moment between our
 * check and the server's own bind; then that server dies with "address already in use" and, in a
 * three-member etcd, the kill of a second member leaves no quorum. Below the range, only another
 * listener can take it.
 */
@OutsideEnv(
    "picks a real loopback port for a real listener; random so that parallel runs rarely collide")
public final class LoopbackPorts {
  private static final Path RANGE = Path.of("/proc/sys/net/ipv4/ip_local_port_range");
  private static final int LOWEST = 10_000;
  private static final int DEFAULT_EPHEMERAL_START = 32_768;

  private LoopbackPorts() {}

  /** A port nothing listens on now, outside the ephemeral range. */
  public static int free() {
    int below = ephemeralStart();
    IOException last = null;
    for (int attempt = 0; attempt < 200; attempt++) {
      int port = below > LOWEST + 1_000 ? ThreadLocalRandom.current().nextInt(LOWEST, below) : 0;
      try (var s = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
        return s.getLocalPort();
      } catch (IOException e) {
        last = e; // taken: another try
      }
    }
    throw new UncheckedIOException("no free loopback port found below " + below, last);
  }

  /** The first port of the kernel's ephemeral range; the Linux default where it cannot be read. */
  static int ephemeralStart() {
    // By line: Files.readString of this /proc file returned its first byte alone here (Java 25).
    try (var reader = Files.newBufferedReader(RANGE)) {
      return Integer.parseInt(reader.readLine().strip().split("\\s+")[0]);
    } catch (IOException | RuntimeException e) {
      return DEFAULT_EPHEMERAL_START;
    }
  }
}
