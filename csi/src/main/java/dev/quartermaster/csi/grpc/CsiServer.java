package dev.quartermaster.csi.grpc;

import dev.quartermaster.core.env.OutsideEnv;
import io.grpc.BindableService;
import io.grpc.Server;
import io.grpc.netty.NettyServerBuilder;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerDomainSocketChannel;
import io.netty.channel.unix.DomainSocketAddress;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * Serves CSI services (any of Identity, Controller, Node) on a Unix socket, over Netty's epoll
 * transport, each call on its own virtual thread (plugin calls do blocking file I/O).
 *
 * <p>A socket file left by a previous run that died is removed at start, as CSI plugins do; any
 * other kind of file at that path is left alone and the start fails, since it is not ours to
 * delete. {@link #close()} stops the server and removes the socket.
 */
@OutsideEnv("a gRPC server's threads serve a real Unix socket")
public final class CsiServer implements AutoCloseable {

  private final Path socket;
  private final Server server;
  private final EventLoopGroup group;
  private final ExecutorService executor;

  private CsiServer(Path socket, Server server, EventLoopGroup group, ExecutorService executor) {
    this.socket = socket;
    this.server = server;
    this.group = group;
    this.executor = executor;
  }

  /**
   * Starts serving {@code services} at {@code endpoint} ({@code unix:///abs/path} or an absolute
   * path).
   *
   * @throws UncheckedIOException if the socket cannot be bound
   */
  public static CsiServer start(String endpoint, List<BindableService> services) {
    var socket = Endpoints.socketPath(endpoint);
    removeStaleSocket(socket);
    NettyLogs.quiet();
    var group = new MultiThreadIoEventLoopGroup(1, EpollIoHandler.newFactory());
    var executor = Executors.newVirtualThreadPerTaskExecutor();
    var builder =
        NettyServerBuilder.forAddress(new DomainSocketAddress(socket.toString()))
            .channelType(EpollServerDomainSocketChannel.class)
            .bossEventLoopGroup(group)
            .workerEventLoopGroup(group)
            .executor(executor);
    services.forEach(builder::addService);
    try {
      var server = builder.build().start();
      return new CsiServer(socket, server, group, executor);
    } catch (IOException e) {
      group.shutdownGracefully(0, 0, TimeUnit.MILLISECONDS);
      executor.shutdownNow();
      throw new UncheckedIOException("cannot serve CSI on " + socket, e);
    }
  }

  /** The socket it listens on. */
  public Path socket() {
    return socket;
  }

  /** The endpoint to give a client: {@code unix://} and the socket's absolute path. */
  public String endpoint() {
    return "unix://" + socket;
  }

  @Override
  public void close() {
    server.shutdown();
    try {
      if (!server.awaitTermination(5, TimeUnit.SECONDS)) {
        server.shutdownNow();
        server.awaitTermination(5, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      server.shutdownNow();
      Thread.currentThread().interrupt();
    } finally {
      group.shutdownGracefully(0, 1, TimeUnit.SECONDS);
      executor.shutdownNow();
      try {
        Files.deleteIfExists(socket);
      } catch (IOException e) {
        // Next start removes it as stale.
      }
    }
  }

  private static void removeStaleSocket(Path socket) {
    try {
      if (!Files.exists(socket, LinkOption.NOFOLLOW_LINKS)) {
        Files.createDirectories(socket.getParent());
        return;
      }
      var mode = (Integer) Files.getAttribute(socket, "unix:mode", LinkOption.NOFOLLOW_LINKS);
      if ((mode & 0170000) != 0140000) { // S_IFMT / S_IFSOCK
        throw new IllegalStateException(socket + " exists and is not a socket; not removing it");
      }
      Files.delete(socket);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot prepare " + socket, e);
    }
  }
}
