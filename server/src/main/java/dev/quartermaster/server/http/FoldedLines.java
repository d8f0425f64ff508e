package dev.quartermaster.server.http;

import dev.quartermaster.api.error.ApiError;
import dev.quartermaster.api.error.ApiError.Reason;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.LastHttpContent;

/**
 * Refuses a request whose head has an obsolete line folding (RFC 9112 section 5.2): a header line
 * that starts with a space or tab, continuing the line above. Netty's codec joins such a line onto
 * the previous field's value, after which the fold cannot be seen; but a proxy in front may have
 * read it as a field of its own, or dropped it, and then the two disagree on what a field (say
 * {@code Authorization}) says. RFC 9112 lets a server answer 400 or replace the fold with a space:
 * this one answers 400 and closes the connection, whose byte stream can no longer be trusted.
 *
 * <p>So the raw bytes are scanned before the codec, but only a head's: a body may hold anything, a
 * JSON line that starts with a space included. Where a head ends the scanner sees (the empty line);
 * where the body after it ends only the codec knows (Content-Length or the chunks' framing), and
 * {@link #boundaries()}, placed after the codec, hears it from the messages the codec decodes. The
 * codec decodes synchronously, so the bytes are handed to it in pieces that never run past a body's
 * end: the body's length, or for a chunked body up to each line end (a chunked message ends at
 * one). The byte after a body is thus always scanned as the start of the next head.
 *
 * <p>A refused head never reaches the codec: a {@link HeadRefusal} goes on in its place, for {@link
 * RequestReader} to answer after any request pipelined before it. All methods run on the
 * connection's event loop.
 */
final class FoldedLines extends ChannelInboundHandlerAdapter {
  private enum Mode {
    /** Scanning a request head on its way to the codec. */
    HEAD,
    /** Handing a request body to the codec unscanned. */
    BODY,
    /** The codec refused the request itself and the connection is ending: nothing left to guard. */
    PASSING,
    /** A fold was found: nothing more reaches the codec. */
    DROPPING
  }

  private static final byte CR = '\r';
  private static final byte LF = '\n';
  private static final byte SP = ' ';
  private static final byte HT = '\t';

  private final ChannelHandler boundaries = new Boundaries();
  private Mode mode = Mode.HEAD;

  /**
   * In {@link Mode#BODY}: the bytes the codec still reads as body, or -1 to hand over a line at a
   * time.
   */
  private long remaining = -1;

  // The head's scanner: whether the request line has begun (the codec skips line ends before one),
  // the number of the current line (the request line is 0), and that line's length and last byte.
  private boolean started;
  private int line;
  private int lineLength;
  private byte last;

  /** The handler to place right after the codec: it tells this one where each request ends. */
  ChannelHandler boundaries() {
    return boundaries;
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    if (!(msg instanceof ByteBuf in)) {
      ctx.fireChannelRead(msg);
      return;
    }
    try {
      while (in.isReadable() && mode != Mode.DROPPING) {
        int from = in.readerIndex();
        int to =
            switch (mode) {
              case HEAD -> scanHead(in);
              case BODY ->
                  remaining > 0
                      ? from + (int) Math.min(in.readableBytes(), remaining)
                      : lineEnd(in);
              case PASSING, DROPPING -> in.writerIndex();
            };
        if (mode == Mode.DROPPING) {
          ctx.fireChannelRead(
              new HeadRefusal(
                  ApiError.of(
                      Reason.BadRequest,
                      "header line "
                          + line
                          + " of the request is an obsolete line folding (starts with a space or tab): RFC 9112 5.2;"
                          + " send each field on one line")));
          return;
        }
        if (mode == Mode.BODY && remaining > 0) {
          remaining -= to - from;
          // The codec ends the body within this piece. Should it not, a line at a time stays safe.
          remaining = remaining == 0 ? -1 : remaining;
        }
        in.readerIndex(to);
        ctx.fireChannelRead(
            in.retainedSlice(from, to - from)); // the codec may move mode on meanwhile
      }
    } finally {
      in.release();
    }
  }

  /**
   * Scans head bytes from the reader index: returns the index just past the head's empty line, or
   * the end of what came; at a fold, the fold's index with {@link Mode#DROPPING} set.
   */
  private int scanHead(ByteBuf in) {
    for (int i = in.readerIndex(); i < in.writerIndex(); i++) {
      byte b = in.getByte(i);
      if (!started) {
        if (b == CR || b == LF || b == SP || b == HT) {
          continue; // before a request line: what the codec skips, and no field yet to continue
        }
        started = true;
      }
      if (b == LF) {
        if (lineLength == 0 || lineLength == 1 && last == CR) {
          newHead(); // unless the codec reports a request, it is still looking for one
          return i + 1;
        }
        line++;
        lineLength = 0;
        continue;
      }
      if (lineLength == 0 && line > 0 && (b == SP || b == HT)) {
        mode = Mode.DROPPING;
        return i;
      }
      lineLength++;
      last = b;
    }
    return in.writerIndex();
  }

  private static int lineEnd(ByteBuf in) {
    int lf = in.indexOf(in.readerIndex(), in.writerIndex(), LF);
    return lf < 0 ? in.writerIndex() : lf + 1;
  }

  private void newHead() {
    started = false;
    line = 0;
    lineLength = 0;
  }

  /** After the codec: sets the mode from each request's head and end as the codec decoded them. */
  private final class Boundaries extends ChannelInboundHandlerAdapter {
    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
      if (mode == Mode.HEAD || mode == Mode.BODY) {
        if (msg instanceof HttpRequest request) {
          if (request.decoderResult().isFailure()) {
            mode = Mode.PASSING;
          } else {
            long length =
                HttpUtil.isTransferEncodingChunked(request)
                    ? -1
                    : HttpUtil.getContentLength(request, 0L);
            mode = Mode.BODY;
            remaining = length > 0 ? length : -1;
          }
        }
        if (msg instanceof LastHttpContent end) {
          mode = end.decoderResult().isFailure() ? Mode.PASSING : Mode.HEAD;
          newHead();
        }
      }
      ctx.fireChannelRead(msg);
    }
  }
}
