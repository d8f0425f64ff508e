package dev.quartermaster.server.http;

import com.sun.net.httpserver.HttpHandler;
import dev.quartermaster.api.error.ApiError;
import dev.quartermaster.api.error.ApiError.Reason;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.socket.ChannelInputShutdownEvent;
import io.netty.handler.codec.TooLongFrameException;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.handler.codec.http.TooLongHttpHeaderException;
import io.netty.handler.codec.http.TooLongHttpLineException;
import io.netty.util.ReferenceCountUtil;
import java.io.ByteArrayOutputStream;
import java.net.URI;
import java.net.URISyntaxException;
import java.util.ArrayDeque;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns the HTTP codec's pieces into whole requests and runs them, one at a time per connection and
 * in order, each on the executor (a virtual thread per request). Whatever the codec could not read,
 * a head {@link FoldedLines} refused, a target that is not a URI path, or a body declared past the
 * limit with {@code Expect: 100-continue}, is answered here with a JSON error and the connection
 * closed.
 *
 * <p>A body is kept up to the body limit plus one byte: enough for the handler to answer 413, which
 * it is handed at once, chunked or not, while the client still sends. The rest is read and dropped
 * (so the client, still sending, sees the answer and not a reset) up to {@link #DRAIN_CAP} bytes or
 * the request deadline; then the connection closes: a client that sends 100 MB to a 1 MiB limit
 * costs the server a few MiB of reading, not 100. Requests that arrive while one is being answered
 * wait in order; reading stops until they are answered, so a pipelining client cannot queue without
 * bound.
 *
 * <p>All methods but the exchange's completion callback run on the connection's event loop.
 */
final class RequestReader extends ChannelInboundHandlerAdapter {
  private static final Logger log = LoggerFactory.getLogger(RequestReader.class);

  /**
   * The most bytes of a refused body read and dropped past the limit before the connection closes.
   */
  static final long DRAIN_CAP = 4L << 20;

  private sealed interface Pending {
    record Whole(HttpRequest request, URI uri, byte[] body, boolean closeAfter)
        implements Pending {}

    record Refused(ApiError error) implements Pending {}
  }

  /** A request whose body is still arriving. */
  private static final class Assembly {
    final HttpRequest request;
    final URI uri;
    final ByteArrayOutputStream body = new ByteArrayOutputStream();
    long dropped;

    /** The body passed the limit and the request was handed over: the rest is only dropped. */
    boolean refused;

    Assembly(HttpRequest request, URI uri) {
      this.request = request;
      this.uri = uri;
    }
  }

  private final HttpHandler handler;
  private final Executor executor;
  private final long keepBytes;
  private final long maxBodyBytes;
  private final RequestDeadlines deadlines;
  private final Consumer<Rejection> rejected;
  private final int maxLineBytes;
  private final int maxHeaderBytes;
  private final ArrayDeque<Pending> waiting = new ArrayDeque<>();
  private ChannelHandlerContext ctx;
  private Assembly assembly;
  private ChannelExchange current;

  /** Set once the connection is to close: nothing more is read or run. */
  private boolean ending;

  RequestReader(
      HttpHandler handler,
      Executor executor,
      long maxBodyBytes,
      int maxLineBytes,
      int maxHeaderBytes,
      RequestDeadlines deadlines,
      Consumer<Rejection> rejected) {
    this.handler = handler;
    this.executor = executor;
    this.maxBodyBytes = maxBodyBytes;
    this.keepBytes = maxBodyBytes + 1;
    this.maxLineBytes = maxLineBytes;
    this.maxHeaderBytes = maxHeaderBytes;
    this.deadlines = deadlines;
    this.rejected = rejected;
  }

  @Override
  public void handlerAdded(ChannelHandlerContext ctx) {
    this.ctx = ctx;
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    try {
      if (!ending) {
        read(msg);
      }
    } finally {
      ReferenceCountUtil.release(msg);
    }
  }

  private void read(Object msg) {
    if (msg instanceof HeadRefusal refusal) {
      refuse(refusal.error());
      return;
    }
    if (msg instanceof HttpRequest request) {
      if (request.decoderResult().isFailure()) {
        refuse(codecError(request.decoderResult().cause()));
        return;
      }
      var head = RequestHead.problem(request);
      if (head.isPresent()) {
        refuse(head.get());
        return;
      }
      var uri = target(request.uri());
      if (uri instanceof Target.Bad bad) {
        refuse(bad.error());
        return;
      }
      if (HttpUtil.is100ContinueExpected(request)) {
        if (HttpUtil.getContentLength(request, -1L) > maxBodyBytes) {
          refuse(
              new ApiError(
                  413,
                  Reason.PayloadTooLarge,
                  "request body is "
                      + HttpUtil.getContentLength(request, -1L)
                      + " bytes; the limit is "
                      + maxBodyBytes
                      + " bytes",
                  List.of()));
          return;
        }
        if (current == null && waiting.isEmpty()) {
          ctx.writeAndFlush(
              new DefaultFullHttpResponse(
                  HttpVersion.HTTP_1_1, HttpResponseStatus.CONTINUE, Unpooled.EMPTY_BUFFER));
        }
      }
      assembly = new Assembly(request, ((Target.Good) uri).uri());
    }
    if (msg instanceof HttpContent content && assembly != null) {
      if (assembly.refused) {
        // Answered already (413): the rest is dropped, a broken chunk included, never answered.
        assembly.dropped += content.content().readableBytes();
        if (content.decoderResult().isFailure()
            || content instanceof LastHttpContent
            || assembly.dropped > DRAIN_CAP) {
          drained();
        }
        return;
      }
      if (content.decoderResult().isFailure()) {
        refuse(codecError(content.decoderResult().cause()));
        return;
      }
      var bytes = content.content();
      boolean last = content instanceof LastHttpContent;
      int keep = (int) Math.min(bytes.readableBytes(), keepBytes - assembly.body.size());
      var kept = new byte[keep];
      bytes.readBytes(kept);
      assembly.body.writeBytes(kept);
      assembly.dropped += bytes.readableBytes();
      boolean overLimit = assembly.body.size() > maxBodyBytes;
      if (last || overLimit) {
        // Over the limit, the handler answers 413 from what it holds, now: the rest of the body
        // changes nothing, and the connection closes once the rest is dropped or the cap is hit.
        var whole =
            new Pending.Whole(
                assembly.request, assembly.uri, assembly.body.toByteArray(), overLimit);
        if (overLimit && !last) {
          assembly.refused = true;
        } else {
          assembly = null;
        }
        queue(whole);
        if (assembly != null && assembly.dropped > DRAIN_CAP) {
          drained();
        }
      }
    }
  }

  /** A refused body's rest is dropped (or the cap reached): close once its answer is out. */
  private void drained() {
    assembly = null;
    ending = true;
    ctx.channel().config().setAutoRead(false);
    if (current == null && waiting.isEmpty()) {
      ctx.close();
    }
  }

  private ApiError cutShort(Assembly cut) {
    long declared = HttpUtil.getContentLength(cut.request, -1L);
    long received = cut.body.size() + cut.dropped;
    if (declared > maxBodyBytes) {
      return new ApiError(
          413,
          Reason.PayloadTooLarge,
          "request body is " + declared + " bytes; the limit is " + maxBodyBytes + " bytes",
          List.of());
    }
    return new ApiError(
        400,
        Reason.BadRequest,
        "the request body ended after "
            + received
            + " bytes"
            + (declared >= 0
                ? " of the " + declared + " that Content-Length declared"
                : ", before its last chunk"),
        List.of());
  }

  private void refuse(ApiError error) {
    assembly = null;
    ending =
        true; // after a message the codec could not read, nothing on this connection is trusted
    ctx.channel().config().setAutoRead(false);
    rejected.accept(Rejection.MALFORMED);
    queue(new Pending.Refused(error));
  }

  private void queue(Pending pending) {
    deadlines.requestRead();
    waiting.add(pending);
    if (current != null) {
      ctx.channel().config().setAutoRead(false); // one request waits; read on once it is answered
    }
    runNext();
  }

  private void runNext() {
    if (current != null) {
      return;
    }
    var next = waiting.poll();
    if (next == null) {
      if (!ending) {
        ctx.channel().config().setAutoRead(true);
      }
      return;
    }
    switch (next) {
      case Pending.Refused refused ->
          ctx.writeAndFlush(TransportReplies.full(refused.error()))
              .addListener(ChannelFutureListener.CLOSE);
      case Pending.Whole whole -> {
        var exchange =
            new ChannelExchange(
                ctx.channel(),
                whole.request(),
                whole.uri(),
                whole.body(),
                whole.closeAfter(),
                this::answered);
        current = exchange;
        var threads =
            executor instanceof RequestThreads routed
                ? routed.of(whole.request().method().name(), whole.uri().getRawPath())
                : executor;
        threads.execute(() -> run(exchange));
      }
    }
  }

  private void run(ChannelExchange exchange) {
    try {
      handler.handle(exchange);
    } catch (Throwable e) {
      log.error("event=handler_failed path={}", exchange.getRequestURI().getRawPath(), e);
    } finally {
      exchange.close();
    }
  }

  /** On the event loop: the current answer is queued whole. */
  private void answered(boolean keepOpen) {
    current = null;
    if (!keepOpen) {
      waiting.clear();
      if (assembly != null && assembly.refused && !ending) {
        // The client may still be sending the body this answer refused: let it, up to the cap,
        // so that it reads the answer instead of a reset; drained() closes.
        deadlines.drainingRefusedBody();
        ctx.channel().config().setAutoRead(true);
        return;
      }
      ending = true;
      ctx.close();
      return;
    }
    if (waiting.isEmpty()) {
      if (ending) {
        ctx.close(); // the client sends no more (its input side is shut): nothing else to answer
        return;
      }
      if (assembly != null) {
        deadlines.readingRequest();
      } else {
        deadlines.waitForRequest();
      }
    }
    runNext();
  }

  /**
   * The client shut down its sending side after its request (as {@code nc -N} or an HTTP/1.0 client
   * may): no request follows, but what was asked is still answered, and then the connection closes.
   */
  @Override
  public void userEventTriggered(ChannelHandlerContext ctx, Object event) throws Exception {
    if (event instanceof ChannelInputShutdownEvent) {
      if (assembly != null && assembly.refused) {
        drained(); // the refused body's sender is done: nothing more comes
        return;
      }
      if (assembly != null) {
        // The client stopped sending inside a body: the request can never be whole. Say why, rather
        // than wait for bytes that cannot come.
        refuse(cutShort(assembly));
        return;
      }
      ending = true;
      if (current == null && waiting.isEmpty()) {
        ctx.close();
      }
      return;
    }
    super.userEventTriggered(ctx, event);
  }

  @Override
  public void channelWritabilityChanged(ChannelHandlerContext ctx) throws Exception {
    var exchange = current;
    if (exchange != null) {
      exchange.output().wake();
    }
    super.channelWritabilityChanged(ctx);
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) throws Exception {
    ending = true;
    waiting.clear();
    assembly = null;
    var exchange = current;
    if (exchange != null) {
      exchange.output().wake();
    }
    super.channelInactive(ctx);
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    // A reset by the client, mostly: nothing to answer, and nothing the operator must act on.
    log.debug(
        "event=connection_error remote={} cause='{}'",
        ctx.channel().remoteAddress(),
        cause.toString());
    ctx.close();
  }

  private ApiError codecError(Throwable cause) {
    return switch (cause) {
      case TooLongHttpLineException _ ->
          new ApiError(
              414,
              Reason.UriTooLong,
              "the request line is longer than "
                  + maxLineBytes
                  + " bytes (a request target may be at most 8192 characters)",
              List.of());
      case TooLongHttpHeaderException _ ->
          new ApiError(
              431,
              Reason.HeadersTooLarge,
              "the request headers are larger than " + maxHeaderBytes + " bytes",
              List.of());
      case TooLongFrameException _ ->
          new ApiError(
              431,
              Reason.HeadersTooLarge,
              "a request line, header or chunk is too long",
              List.of());
      default -> {
        // Netty's own words for the framing it refuses (a request carrying both framings, or a
        // transfer coding in HTTP/1.0), said as the rule they break.
        var said = String.valueOf(cause.getMessage());
        yield ApiError.of(
            Reason.BadRequest,
            said.contains("Content-Length are not allowed")
                ? RequestHead.BOTH_FRAMINGS
                : said.contains("Transfer-Encoding header is only allowed in HTTP/1.1")
                    ? RequestHead.CODING_IN_HTTP_1_0
                    : "malformed HTTP request: " + HttpTransport.printable(said));
      }
    };
  }

  private sealed interface Target {
    record Good(URI uri) implements Target {}

    record Bad(ApiError error) implements Target {}
  }

  /** The request target as a URI with a path: what every handler reads. */
  private static Target target(String raw) {
    try {
      var uri = new URI(raw);
      var path = uri.getRawPath();
      if (path == null || !path.startsWith("/")) {
        return new Target.Bad(
            ApiError.of(
                Reason.BadRequest,
                "the request target must be a path starting with '/', got '"
                    + HttpTransport.printable(raw)
                    + "'"));
      }
      return new Target.Good(uri);
    } catch (URISyntaxException e) {
      return new Target.Bad(
          ApiError.of(
              Reason.BadRequest,
              "the request target is not a valid URI: "
                  + e.getReason()
                  + " at index "
                  + e.getIndex()
                  + " of '"
                  + HttpTransport.printable(raw)
                  + "' (escape '%' as %25)"));
    }
  }
}
