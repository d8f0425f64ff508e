package dev.quartermaster.server.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.ReferenceCountUtil;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@link FoldedLines} before Netty's codec, fed pipelined requests cut at every byte: a fold in a
 * head is refused wherever the cut falls, a body's line that starts with a space never is, and
 * nothing after a refused head reaches the codec.
 */
class FoldedLinesTest {
  /** A fixed-length body whose second line starts with a space, the next request right after it. */
  private static final String FIXED_BODY = "{\"a\":\n \"b\"}";

  private static final String FIXED =
      "POST /one HTTP/1.1\r\nHost: x\r\nContent-Length: "
          + FIXED_BODY.length()
          + "\r\n\r\n"
          + FIXED_BODY;

  /** A chunked body with a line that starts with a space inside a chunk, and a trailer. */
  private static final String CHUNKED =
      "POST /two HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
          + "5\r\nx\r\n y\r\n3\r\n\tz\n\r\n0\r\nX-Trailer: t\r\n\r\n";

  private static final String FOLDED =
      "GET /three HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer\r\n secret\r\n\r\n";
  private static final String PLAIN = "\r\nGET /four HTTP/1.1\r\nHost: x\r\n\r\n";

  @Test
  void bodiesPassAndAFoldedHeadIsRefusedWhereverTheBytesAreCut() {
    var stream = FIXED + CHUNKED + FOLDED + PLAIN;
    var expected =
        List.of(
            "POST /one " + FIXED_BODY,
            "POST /two x\r\n y\tz\n",
            "refused: header line 3 of the request"
                + " is an obsolete line folding (starts with a space or tab): RFC 9112 5.2; send each field on one line");
    assertThat(decode(stream)).isEqualTo(expected);
    for (int cut = 1; cut < stream.length(); cut++) {
      assertThat(decode(stream.substring(0, cut), stream.substring(cut)))
          .as("cut at %d", cut)
          .isEqualTo(expected);
    }
    assertThat(decode(stream.split(""))).as("a byte at a time").isEqualTo(expected);
  }

  @Test
  void withoutAFoldEveryRequestPasses() {
    var stream = FIXED + CHUNKED + PLAIN;
    var expected = List.of("POST /one " + FIXED_BODY, "POST /two x\r\n y\tz\n", "GET /four ");
    for (int cut = 1; cut < stream.length(); cut++) {
      assertThat(decode(stream.substring(0, cut), stream.substring(cut)))
          .as("cut at %d", cut)
          .isEqualTo(expected);
    }
    assertThat(decode(stream.split(""))).as("a byte at a time").isEqualTo(expected);
  }

  @Test
  void aFoldWithATabOrAsTheFirstHeaderLineIsRefused() {
    assertThat(decode("GET / HTTP/1.1\r\nX-Note: a\r\n\tb\r\n\r\n"))
        .singleElement()
        .asString()
        .startsWith("refused: header line 2 ");
    assertThat(decode("GET / HTTP/1.1\r\n Host: x\r\n\r\n"))
        .singleElement()
        .asString()
        .startsWith("refused: header line 1 ");
    // Line ends before a request line are skipped, by the codec and by the scan alike.
    assertThat(decode("\r\n\r\nGET / HTTP/1.1\r\nHost: x\r\n\r\n")).containsExactly("GET / ");
  }

  /** What reaches the handler after the codec when {@code pieces} arrive one read after another. */
  private static List<String> decode(String... pieces) {
    var seen = new Recorder();
    var folds = new FoldedLines();
    var channel = new EmbeddedChannel(folds, new HttpServerCodec(), folds.boundaries(), seen);
    for (var piece : pieces) {
      channel.writeInbound(Unpooled.copiedBuffer(piece, StandardCharsets.ISO_8859_1));
    }
    var requests = List.copyOf(seen.requests);
    channel
        .finishAndReleaseAll(); // the codec then reports a head it holds unfinished: not a request
    return requests;
  }

  /**
   * Each whole request as "METHOD target body", each refusal as "refused: message", a codec error
   * as "failed: ...".
   */
  private static final class Recorder extends ChannelInboundHandlerAdapter {
    final List<String> requests = new ArrayList<>();
    private final StringBuilder current = new StringBuilder();

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
      try {
        if (msg instanceof HeadRefusal refusal) {
          requests.add("refused: " + refusal.error().message());
        }
        if (msg instanceof HttpRequest request) {
          if (request.decoderResult().isFailure()) {
            requests.add("failed: " + request.decoderResult().cause());
          }
          current.setLength(0);
          current.append(request.method()).append(' ').append(request.uri()).append(' ');
        }
        if (msg instanceof HttpContent content) {
          current.append(content.content().toString(StandardCharsets.ISO_8859_1));
          if (msg instanceof LastHttpContent) {
            requests.add(current.toString());
          }
        }
      } finally {
        ReferenceCountUtil.release(msg);
      }
    }
  }
}
