package dev.quartermaster.server.http;

import com.sun.management.UnixOperatingSystemMXBean;
import com.sun.net.httpserver.HttpHandler;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.http.HttpDecoderConfig;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.ssl.SslContext;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.netty.util.concurrent.GlobalEventExecutor;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.net.BindException;
import java.net.InetSocketAddress;
import java.util.Optional;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * HTTP/1.1 for the API, on Netty's codec: a few event-loop threads own the sockets, each request
 * runs on the executor (a virtual thread) against the JDK {@link HttpHandler} API, and the
 * transport itself enforces what a hostile client must not get past: connection caps at accept, a
 * clock on every request and idle connection, bounded request lines, headers and bodies,
 * back-pressure on answers, and a JSON error for everything it refuses (never an HTML page).
 *
 * <pre>
 * socket → ConnectionGate → RequestDeadlines → FoldedLines → HttpServerCodec → (FoldedLines' boundaries)
 *        → RequestReader → handler (virtual thread)
 * </pre>
 */
public final class HttpTransport implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(HttpTransport.class);

  /** The longest request line read; the API itself answers targets over 8 KiB with 414. */
  public static final int MAX_LINE_BYTES = 16 * 1024;

  public static final int MAX_HEADER_BYTES = 32 * 1024;

  /** A connection whose unsent answer passes this stops its writer until the client reads. */
  private static final WriteBufferWaterMark WATER_MARK =
      new WriteBufferWaterMark(32 * 1024, 128 * 1024);

  private final EventLoopGroup acceptor;
  private final EventLoopGroup workers;
  private final Channel listener;
  private final ChannelGroup connections;
  private final ConnectionGate gate;
  private final int maxConnections;

  private HttpTransport(
      EventLoopGroup acceptor,
      EventLoopGroup workers,
      Channel listener,
      ChannelGroup connections,
      ConnectionGate gate,
      int maxConnections) {
    this.acceptor = acceptor;
    this.workers = workers;
    this.listener = listener;
    this.connections = connections;
    this.gate = gate;
    this.maxConnections = maxConnections;
  }

  /**
   * Binds and serves.
   *
   * @param maxBodyBytes the handler's body limit: bodies are kept up to one byte past it
   * @param rejected told of every connection or request refused before a handler ran
   */
  public static HttpTransport start(
      InetSocketAddress address,
      ConnectionSettings settings,
      long maxBodyBytes,
      HttpHandler handler,
      Executor executor,
      Consumer<Rejection> rejected)
      throws IOException {
    return start(address, settings, maxBodyBytes, handler, executor, rejected, Optional.empty());
  }

  /** As above, speaking TLS on every connection when {@code tls} is given (HTTPS). */
  public static HttpTransport start(
      InetSocketAddress address,
      ConnectionSettings settings,
      long maxBodyBytes,
      HttpHandler handler,
      Executor executor,
      Consumer<Rejection> rejected,
      Optional<SslContext> tls)
      throws IOException {
    int maxConnections = withinFileLimit(settings.maxConnections());
    var gate = new ConnectionGate(maxConnections, settings.maxConnectionsPerAddress(), rejected);
    var connections = new DefaultChannelGroup("qm-http", GlobalEventExecutor.INSTANCE);
    // Linux's own epoll where its library loads: per request it makes fewer system calls and less
    // garbage than the JDK selector (NIO), which stays the transport everywhere else.
    boolean epoll = Epoll.isAvailable();
    var acceptor =
        new MultiThreadIoEventLoopGroup(
            1,
            new DefaultThreadFactory("qm-http-accept", true),
            epoll ? EpollIoHandler.newFactory() : NioIoHandler.newFactory());
    var workers =
        new MultiThreadIoEventLoopGroup(
            Math.max(2, Runtime.getRuntime().availableProcessors()),
            new DefaultThreadFactory("qm-http-io", true),
            epoll ? EpollIoHandler.newFactory() : NioIoHandler.newFactory());
    var decoding =
        new HttpDecoderConfig()
            .setMaxInitialLineLength(MAX_LINE_BYTES)
            .setMaxHeaderSize(MAX_HEADER_BYTES)
            .setMaxChunkSize(64 * 1024);
    var bootstrap =
        new ServerBootstrap()
            .group(acceptor, workers)
            .channel(epoll ? EpollServerSocketChannel.class : NioServerSocketChannel.class)
            .option(ChannelOption.SO_BACKLOG, 1024)
            .option(ChannelOption.SO_REUSEADDR, true)
            .childOption(ChannelOption.TCP_NODELAY, true)
            // A client that shuts down its sending side after a request still gets the answer.
            .childOption(ChannelOption.ALLOW_HALF_CLOSURE, true)
            .childOption(ChannelOption.WRITE_BUFFER_WATER_MARK, WATER_MARK)
            .childHandler(
                new ChannelInitializer<SocketChannel>() {
                  @Override
                  protected void initChannel(SocketChannel channel) {
                    connections.add(channel);
                    var deadlines = new RequestDeadlines(settings, rejected);
                    var folds = new FoldedLines();
                    channel.pipeline().addLast("gate", gate);
                    tls.ifPresent(
                        ctx -> channel.pipeline().addLast("tls", ctx.newHandler(channel.alloc())));
                    channel
                        .pipeline()
                        .addLast("deadlines", deadlines)
                        .addLast("folds", folds)
                        .addLast("codec", new HttpServerCodec(decoding))
                        .addLast("boundaries", folds.boundaries())
                        .addLast(
                            "requests",
                            new RequestReader(
                                handler,
                                executor,
                                maxBodyBytes,
                                MAX_LINE_BYTES,
                                MAX_HEADER_BYTES,
                                deadlines,
                                rejected));
                  }
                });
    try {
      var listener = bootstrap.bind(address).syncUninterruptibly().channel();
      return new HttpTransport(acceptor, workers, listener, connections, gate, maxConnections);
    } catch (Exception e) { // Netty throws the bind's IOException unannounced, or wrapped unchecked
      acceptor.shutdownGracefully(0, 0, TimeUnit.MILLISECONDS);
      workers.shutdownGracefully(0, 0, TimeUnit.MILLISECONDS);
      throw bindFailure(address, e);
    }
  }

  /**
   * The bind's failure as an {@link IOException}; a taken address as the JDK's {@link
   * BindException} whichever transport failed (epoll names it by errno in its own exception type).
   */
  private static IOException bindFailure(InetSocketAddress address, Exception e) {
    var io =
        e instanceof IOException direct
            ? direct
            : e.getCause() instanceof IOException wrapped ? wrapped : null;
    if (io == null) {
      return new IOException("cannot listen on " + address + ": " + e.getMessage(), e);
    }
    if (!(io instanceof BindException)
        && String.valueOf(io.getMessage()).contains("Address already in use")) {
      var taken = new BindException("Address already in use");
      taken.initCause(io);
      return taken;
    }
    return io;
  }

  public InetSocketAddress address() {
    return (InetSocketAddress) listener.localAddress();
  }

  /**
   * The connection cap in effect (the asked one, or half the open-file limit when that is lower).
   */
  public int maxConnections() {
    return maxConnections;
  }

  /** Connections open now. */
  public int openConnections() {
    return gate.open();
  }

  /** Stops accepting, closes every connection and stops the event loops. */
  @Override
  public void close() {
    listener.close().syncUninterruptibly();
    connections.close().awaitUninterruptibly(5, TimeUnit.SECONDS);
    acceptor.shutdownGracefully(0, 200, TimeUnit.MILLISECONDS);
    workers
        .shutdownGracefully(0, 200, TimeUnit.MILLISECONDS)
        .awaitUninterruptibly(5, TimeUnit.SECONDS);
  }

  /**
   * A connection cap above the process's open-file limit protects nothing: the flood exhausts the
   * descriptors first, and then the store and the log cannot open files either. So the cap is at
   * most half the limit, leaving the other half to everything else.
   */
  static int withinFileLimit(int maxConnections) {
    if (ManagementFactory.getOperatingSystemMXBean() instanceof UnixOperatingSystemMXBean unix) {
      long half = unix.getMaxFileDescriptorCount() / 2;
      if (half >= 1 && half < maxConnections) {
        log.warn(
            "event=http_connection_cap_lowered asked={} open_file_limit={} cap={} hint='raise ulimit -n for more'",
            maxConnections,
            unix.getMaxFileDescriptorCount(),
            half);
        return (int) half;
      }
    }
    return maxConnections;
  }

  /** Client text echoed in an error: printable ASCII only, and short. */
  public static String printable(String text) {
    if (text == null) {
      return "";
    }
    var out = new StringBuilder();
    for (int i = 0; i < text.length() && out.length() < 200; i++) {
      char c = text.charAt(i);
      out.append(c >= 0x20 && c < 0x7f ? c : '?');
    }
    return text.length() > 200 ? out + "..." : out.toString();
  }
}
