package dev.quartermaster.server.http;

import dev.quartermaster.api.error.ApiError;
import dev.quartermaster.api.error.ApiError.Reason;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.util.concurrent.ScheduledFuture;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * The clock of one connection, before the HTTP codec, so it sees the first raw byte of a request. A
 * connection is always in one of three states:
 *
 * <ul>
 *   <li>{@code WAITING} for a request: closed after {@code idleTimeout} without a byte;
 *   <li>{@code READING} one, from its first byte: answered 408 and closed if the whole request
 *       (body included) is not in within {@code requestTimeout}. This is what frees a socket held
 *       by a client that sends half a request line and stops;
 *   <li>{@code HANDLING} it: no clock, since a watch stream is an answer that lasts for hours (slow
 *       readers of an answer are the watch's own business: see the server's write timeout).
 * </ul>
 *
 * All methods run on the connection's event loop.
 */
final class RequestDeadlines extends ChannelDuplexHandler {
  private enum State {
    WAITING,
    READING,
    HANDLING
  }

  private final Duration requestTimeout;
  private final Duration idleTimeout;
  private final Consumer<Rejection> rejected;
  private State state = State.WAITING;
  private ScheduledFuture<?> timer;
  private ChannelHandlerContext ctx;

  RequestDeadlines(ConnectionSettings settings, Consumer<Rejection> rejected) {
    this.requestTimeout = settings.requestTimeout();
    this.idleTimeout = settings.idleTimeout();
    this.rejected = rejected;
  }

  @Override
  public void channelActive(ChannelHandlerContext ctx) throws Exception {
    this.ctx = ctx;
    waitForRequest();
    super.channelActive(ctx);
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) throws Exception {
    if (state == State.WAITING) {
      state = State.READING;
      schedule(requestTimeout, this::requestTooSlow);
    }
    super.channelRead(ctx, msg);
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) throws Exception {
    cancel();
    super.channelInactive(ctx);
  }

  /** The request is in whole: its handler's time is not ours to limit. */
  void requestRead() {
    state = State.HANDLING;
    cancel();
  }

  /**
   * The answer is out and the next request had begun arriving meanwhile: its clock runs from now.
   */
  void readingRequest() {
    state = State.READING;
    schedule(requestTimeout, this::requestTooSlow);
  }

  /**
   * The answer that refused a body is out while the client may still be sending that body: it may
   * go on for a while (so that it reads the answer rather than a reset), then the connection closes
   * without another word (it has its answer).
   */
  void drainingRefusedBody() {
    state = State.READING;
    schedule(requestTimeout, () -> ctx.close());
  }

  /** The answer is out and the connection kept: wait for the next request. */
  void waitForRequest() {
    state = State.WAITING;
    schedule(idleTimeout, () -> ctx.close());
  }

  private void requestTooSlow() {
    rejected.accept(Rejection.REQUEST_TIMEOUT);
    ctx.channel().config().setAutoRead(false);
    ctx.writeAndFlush(
            TransportReplies.raw(
                ApiError.of(
                    Reason.RequestTimeout,
                    "the request did not arrive whole within "
                        + requestTimeout.toSeconds()
                        + "s of its first byte")))
        .addListener(ChannelFutureListener.CLOSE);
  }

  private void schedule(Duration after, Runnable action) {
    cancel();
    timer = ctx.executor().schedule(action, after.toNanos(), TimeUnit.NANOSECONDS);
  }

  private void cancel() {
    if (timer != null) {
      timer.cancel(false);
      timer = null;
    }
  }
}
