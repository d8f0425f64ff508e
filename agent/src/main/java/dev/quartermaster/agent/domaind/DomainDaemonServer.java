package dev.quartermaster.agent.domaind;

import dev.quartermaster.core.env.OutsideEnv;
import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The daemon's side of the readiness protocol ({@link dev.quartermaster.agent.domaind}): listens on
 * a Unix socket and says whether it is ready, which it becomes {@code startup} after it starts (the
 * IMEX daemon takes a moment to connect to its peers). Each connection is answered on a virtual
 * thread. {@link #close} stops listening and removes the socket file.
 */
@OutsideEnv(
    "the compute-domain daemon is its own process: its readiness deadline and its threads are the daemon's, not a controller's")
public final class DomainDaemonServer implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(DomainDaemonServer.class);

  /** The longest path a Unix socket may have on Linux (sun_path, with its terminating NUL). */
  public static final int MAX_SOCKET_PATH = 107;

  private final String domain;
  private final String node;
  private final Path socket;
  private final ServerSocketChannel server;
  private final long readyAtNanos;
  private final AtomicBoolean closed = new AtomicBoolean();

  private DomainDaemonServer(
      String domain, String node, Path socket, ServerSocketChannel server, long readyAtNanos) {
    this.domain = domain;
    this.node = node;
    this.socket = socket;
    this.server = server;
    this.readyAtNanos = readyAtNanos;
  }

  /**
   * Binds {@code socket} (replacing a stale socket file a killed daemon left) and starts answering.
   */
  public static DomainDaemonServer start(String domain, String node, Path socket, Duration startup)
      throws IOException {
    var path = socket.toAbsolutePath();
    if (path.toString().length() > MAX_SOCKET_PATH) {
      throw new IOException(
          "socket path "
              + path
              + " is "
              + path.toString().length()
              + " characters; a Unix socket path may have at most "
              + MAX_SOCKET_PATH);
    }
    Files.createDirectories(path.getParent());
    Files.deleteIfExists(
        path); // a killed daemon leaves its socket file; bind fails on it otherwise
    var server = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
    server.bind(UnixDomainSocketAddress.of(path));
    var daemon =
        new DomainDaemonServer(domain, node, path, server, System.nanoTime() + startup.toNanos());
    Thread.ofVirtual().name("domain-daemon-accept").start(daemon::serve);
    return daemon;
  }

  public boolean ready() {
    return System.nanoTime() - readyAtNanos >= 0;
  }

  private void serve() {
    while (!closed.get()) {
      try {
        var client = server.accept();
        Thread.ofVirtual().start(() -> answer(client));
      } catch (IOException e) {
        if (!closed.get()) {
          LOG.warn("domain daemon {}: accept failed: {}", domain, e.toString());
        }
        return;
      }
    }
  }

  private void answer(SocketChannel client) {
    try (client) {
      var line =
          (ready() ? "READY " : "STARTING ")
              + domain
              + " "
              + node
              + " "
              + ProcessHandle.current().pid()
              + "\n";
      client.write(ByteBuffer.wrap(line.getBytes(StandardCharsets.US_ASCII)));
    } catch (IOException e) {
      LOG.debug("domain daemon {}: a status client went away: {}", domain, e.toString());
    }
  }

  @Override
  public void close() throws IOException {
    if (closed.compareAndSet(false, true)) {
      server.close();
      Files.deleteIfExists(socket);
    }
  }
}
