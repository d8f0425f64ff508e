package dev.quartermaster.server.http;

import com.fasterxml.jackson.core.JsonProcessingException;
import dev.quartermaster.api.codec.ObjectCodec;
import dev.quartermaster.api.error.ApiError;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

/**
 * The answers the transport gives itself: the same JSON {@link ApiError} body as every handler
 * error, never an HTML page, and always with {@code Connection: close} (what follows on such a
 * connection cannot be trusted to be a request boundary).
 */
final class TransportReplies {
  private TransportReplies() {}

  /** For handlers after the HTTP codec. */
  static FullHttpResponse full(ApiError error) {
    var body = json(error);
    var response =
        new DefaultFullHttpResponse(
            HttpVersion.HTTP_1_1,
            HttpResponseStatus.valueOf(error.code()),
            Unpooled.wrappedBuffer(body));
    response
        .headers()
        .set(HttpHeaderNames.CONTENT_TYPE, HttpHeaderValues.APPLICATION_JSON)
        .setInt(HttpHeaderNames.CONTENT_LENGTH, body.length)
        .set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
    return response;
  }

  /** For handlers before the HTTP codec (at accept, at a deadline): the response as raw bytes. */
  static ByteBuf raw(ApiError error) {
    var body = json(error);
    var head =
        "HTTP/1.1 "
            + HttpResponseStatus.valueOf(error.code())
            + "\r\n"
            + "Content-Type: application/json\r\n"
            + "Content-Length: "
            + body.length
            + "\r\n"
            + "Connection: close\r\n\r\n";
    return Unpooled.wrappedBuffer(head.getBytes(StandardCharsets.US_ASCII), body);
  }

  private static byte[] json(ApiError error) {
    try {
      return ObjectCodec.json().writeValueAsBytes(error.capped());
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException(e);
    }
  }
}
