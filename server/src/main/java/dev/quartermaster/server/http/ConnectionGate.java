package dev.quartermaster.server.http;

import dev.quartermaster.api.error.ApiError;
import dev.quartermaster.api.error.ApiError.Reason;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandler.Sharable;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.util.AttributeKey;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/**
 * Counts open connections, in all and per client address, and turns away those past either cap at
 * accept, before a byte is read: a 503 JSON answer, then close. It is the first handler of every
 * connection, so a flood costs one short-lived socket per refused connection and nothing more.
 */
@Sharable
final class ConnectionGate extends ChannelInboundHandlerAdapter {
  private static final AttributeKey<InetAddress> COUNTED =
      AttributeKey.valueOf("qm.counted-address");

  private final int maxConnections;
  private final int maxPerAddress;
  private final Consumer<Rejection> rejected;
  private final AtomicInteger open = new AtomicInteger();
  private final ConcurrentHashMap<InetAddress, Integer> perAddress = new ConcurrentHashMap<>();

  ConnectionGate(int maxConnections, int maxPerAddress, Consumer<Rejection> rejected) {
    this.maxConnections = maxConnections;
    this.maxPerAddress = maxPerAddress;
    this.rejected = rejected;
  }

  /** Connections open now, refused ones included until they are closed. */
  int open() {
    return open.get();
  }

  @Override
  public void channelActive(ChannelHandlerContext ctx) throws Exception {
    if (!(ctx.channel().remoteAddress() instanceof InetSocketAddress remote)
        || remote.getAddress() == null) {
      // Nothing to count it by (already gone, or not IP): close it rather than serve it uncounted.
      ctx.close();
      return;
    }
    var address = remote.getAddress();
    ctx.channel().attr(COUNTED).set(address);
    int total = open.incrementAndGet();
    int fromAddress = perAddress.merge(address, 1, Integer::sum);
    if (total > maxConnections) {
      refuse(
          ctx,
          Rejection.CONNECTIONS,
          "the server holds its limit of " + maxConnections + " connections; retry later");
    } else if (fromAddress > maxPerAddress) {
      refuse(
          ctx,
          Rejection.CONNECTIONS_PER_ADDRESS,
          "too many connections from "
              + address.getHostAddress()
              + " (limit "
              + maxPerAddress
              + "); close some or retry later");
    } else {
      super.channelActive(ctx);
    }
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) throws Exception {
    var address = ctx.channel().attr(COUNTED).getAndSet(null);
    if (address != null) {
      open.decrementAndGet();
      perAddress.computeIfPresent(address, (a, n) -> n <= 1 ? null : n - 1);
    }
    super.channelInactive(ctx);
  }

  private void refuse(ChannelHandlerContext ctx, Rejection why, String message) {
    rejected.accept(why);
    ctx.channel().config().setAutoRead(false);
    // Written from here, before the HTTP codec: raw bytes straight to the socket.
    ctx.writeAndFlush(TransportReplies.raw(ApiError.of(Reason.Unavailable, message)))
        .addListener(ChannelFutureListener.CLOSE);
  }
}
