package dev.quartermaster.server.http;

import com.sun.net.httpserver.Headers;
import com.sun.net.httpserver.HttpContext;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpPrincipal;
import io.netty.channel.Channel;
import io.netty.handler.codec.DateFormatter;
import io.netty.handler.codec.http.DefaultHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.Date;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Consumer;

/**
 * One request and its answer, shaped as the JDK's {@link HttpExchange} so that handlers are written
 * against the standard API while the transport underneath is Netty's. The request body is already
 * read whole (at most the server's body limit plus one byte, so a handler can tell "too large").
 *
 * <p>{@link #sendResponseHeaders} follows the JDK contract: a length of {@code -1} means no body,
 * {@code 0} a body of unknown length (sent chunked), anything else exactly that many bytes.
 */
final class ChannelExchange extends HttpExchange {
  private final Channel channel;
  private final HttpRequest request;
  private final URI uri;
  private final byte[] body;
  private final Headers requestHeaders = new Headers();
  private final Headers responseHeaders = new Headers();
  private final Map<String, Object> attributes = new HashMap<>();
  private final ChannelOutput output;
  private final boolean keepAliveAsked;
  private final Consumer<Boolean> done;
  private volatile int responseCode = -1;
  private boolean keepOpen;
  private boolean closed;

  /**
   * @param done told on the event loop once the answer is queued whole, with whether the connection
   *     may carry another request
   */
  ChannelExchange(
      Channel channel,
      HttpRequest request,
      URI uri,
      byte[] body,
      boolean closeAfter,
      Consumer<Boolean> done) {
    this.channel = channel;
    this.request = request;
    this.uri = uri;
    this.body = body;
    this.done = done;
    this.output = new ChannelOutput(channel);
    this.keepAliveAsked = !closeAfter && HttpUtil.isKeepAlive(request);
    request.headers().forEach(header -> requestHeaders.add(header.getKey(), header.getValue()));
  }

  ChannelOutput output() {
    return output;
  }

  @Override
  public Headers getRequestHeaders() {
    return requestHeaders;
  }

  @Override
  public Headers getResponseHeaders() {
    return responseHeaders;
  }

  @Override
  public URI getRequestURI() {
    return uri;
  }

  @Override
  public String getRequestMethod() {
    return request.method().name();
  }

  @Override
  public HttpContext getHttpContext() {
    throw new UnsupportedOperationException("no HTTP contexts: one handler serves every path");
  }

  @Override
  public InputStream getRequestBody() {
    return new ByteArrayInputStream(body);
  }

  @Override
  public OutputStream getResponseBody() {
    return output;
  }

  @Override
  public void sendResponseHeaders(int code, long length) throws IOException {
    if (output.started()) {
      throw new IOException("the response headers were sent already");
    }
    responseCode = code;
    var head = new DefaultHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.valueOf(code));
    responseHeaders.forEach((name, values) -> head.headers().add(name, values));
    if (!head.headers().contains(HttpHeaderNames.DATE)) {
      head.headers().set(HttpHeaderNames.DATE, DateFormatter.format(new Date()));
    }
    boolean streamed = length == 0 && !getRequestMethod().equals("HEAD");
    if (streamed) {
      HttpUtil.setTransferEncodingChunked(head, true);
    } else {
      head.headers().set(HttpHeaderNames.CONTENT_LENGTH, Math.max(length, 0));
    }
    keepOpen =
        keepAliveAsked
            && !head.headers().contains(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE, true);
    if (!keepOpen) {
      head.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
    } else if (request.protocolVersion().equals(HttpVersion.HTTP_1_0)) {
      head.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.KEEP_ALIVE);
    }
    output.start(head, streamed);
  }

  @Override
  public InetSocketAddress getRemoteAddress() {
    return (InetSocketAddress) channel.remoteAddress();
  }

  @Override
  public int getResponseCode() {
    return responseCode;
  }

  @Override
  public InetSocketAddress getLocalAddress() {
    return (InetSocketAddress) channel.localAddress();
  }

  @Override
  public String getProtocol() {
    return request.protocolVersion().text();
  }

  @Override
  public Object getAttribute(String name) {
    return attributes.get(name);
  }

  @Override
  public void setAttribute(String name, Object value) {
    attributes.put(name, value);
  }

  @Override
  public void setStreams(InputStream in, OutputStream out) {
    throw new UnsupportedOperationException("the request and response streams are fixed");
  }

  @Override
  public HttpPrincipal getPrincipal() {
    return null; // the JDK contract for "no HTTP authenticator"; tokens are checked by the handler
  }

  /**
   * Ends the exchange: a handler that never answered gets a 500 said for it. Idempotent. The
   * completion callback runs on the event loop, after the answer's last write was queued there.
   */
  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    boolean ok = true;
    try {
      if (!output.started()) {
        var text =
            "{\"code\":500,\"reason\":\"Internal\",\"message\":\"the server sent no answer\",\"details\":[]}"
                .getBytes(StandardCharsets.UTF_8);
        responseHeaders.set("Content-Type", "application/json");
        sendResponseHeaders(500, text.length);
        output.write(text);
      }
    } catch (IOException | UncheckedIOException e) {
      ok = false; // the client is gone; nothing more to say on this connection
    }
    boolean answered = ok;
    output.finish(queued -> done.accept(answered && queued && keepOpen));
  }
}
