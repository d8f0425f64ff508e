package dev.quartermaster.server.http;

import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelOption;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.DefaultHttpContent;
import io.netty.handler.codec.http.EmptyHttpHeaders;
import io.netty.handler.codec.http.HttpObject;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.LastHttpContent;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.io.OutputStream;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Consumer;

/**
 * A response body written by a blocking handler thread onto a connection's event loop.
 *
 * <p>Back-pressure is what bounds memory: after each chunk the writer waits while the connection's
 * outbound buffer is past its high-water mark, so a client that reads slowly holds the writer,
 * never an unbounded queue of bytes. The wait ends when the buffer drains, the connection closes
 * (the write fails with an {@link IOException}) or the writer is interrupted (the connection is
 * closed and the write fails with an {@link InterruptedIOException}): that last is how a watch's
 * write timeout frees a writer whose client stopped reading.
 *
 * <p>An answer that fits the buffer (most of them: an object, an error) leaves as one message, head
 * and body together, in one task on the event loop with the exchange's end: each task handed to the
 * loop from the handler's thread is a wake-up, and on a single client's create they were a fifth of
 * the server's time.
 */
final class ChannelOutput extends OutputStream implements StreamOutput {
  private static final int CHUNK = 8 * 1024;

  private final Channel channel;
  private final Object writable = new Object();
  private final byte[] buffer = new byte[CHUNK];
  private int count;
  private boolean started;
  private boolean finished;
  private boolean closedByWriter;

  /** Set once writes must not wait for the client any more ({@link #stopWaiting}). */
  private volatile boolean noWaiting;

  /** The head of an answer not streamed, held back to leave with the body's first bytes. */
  private HttpResponse heldHead;

  ChannelOutput(Channel channel) {
    this.channel = channel;
  }

  /** Takes the response head; a streamed answer sends it at once, so the client sees its status. */
  void start(HttpResponse head, boolean flushNow) {
    started = true;
    if (flushNow) {
      channel.writeAndFlush(head);
    } else {
      heldHead = head;
    }
  }

  boolean started() {
    return started;
  }

  @Override
  public void write(int b) throws IOException {
    ensureWritable();
    if (count == buffer.length) {
      flushBuffer();
    }
    buffer[count++] = (byte) b;
  }

  @Override
  public void write(byte[] bytes, int offset, int length) throws IOException {
    ensureWritable();
    if (length >= buffer.length) {
      flushBuffer();
      send(Unpooled.copiedBuffer(bytes, offset, length));
      return;
    }
    if (count + length > buffer.length) {
      flushBuffer();
    }
    System.arraycopy(bytes, offset, buffer, count, length);
    count += length;
  }

  @Override
  public long pendingBytes() {
    var outbound = channel.unsafe().outboundBuffer();
    return outbound == null ? 0 : outbound.totalPendingWriteBytes();
  }

  @Override
  public void writeLine(byte[] line) throws IOException {
    ensureWritable();
    flushBuffer();
    send(Unpooled.wrappedBuffer(line));
  }

  @Override
  public void capSocketBuffer(int bytes) {
    channel.config().setOption(ChannelOption.SO_SNDBUF, bytes);
  }

  @Override
  public void stopWaiting() {
    noWaiting = true;
    wake();
  }

  /** Sends what is buffered now (a stream's lines); an answer of known length waits for its end. */
  @Override
  public void flush() throws IOException {
    if (!finished && heldHead == null) {
      flushBuffer();
    }
  }

  /**
   * The handler is done writing: what it wrote leaves when the exchange ends ({@link #finish}), so
   * that an answer closed by its writer still leaves as one message.
   */
  @Override
  public void close() {
    closedByWriter = true;
  }

  /**
   * Ends the answer: what is buffered (with the held head, as one message when nothing was sent
   * yet), then the end of the body; then {@code then} runs on the event loop, told whether all of
   * the answer was queued (a client that is gone is told there, not thrown). Nothing happens the
   * second time.
   */
  void finish(Consumer<Boolean> then) {
    if (finished) {
      return;
    }
    HttpObject last;
    boolean queued = true;
    if (heldHead != null) {
      var whole =
          new DefaultFullHttpResponse(
              heldHead.protocolVersion(),
              heldHead.status(),
              Unpooled.copiedBuffer(buffer, 0, count),
              heldHead.headers(),
              EmptyHttpHeaders.INSTANCE);
      heldHead = null;
      count = 0;
      last = whole;
      queued = channel.isActive();
    } else {
      try {
        flushBuffer();
      } catch (IOException e) {
        queued = false;
      }
      last = LastHttpContent.EMPTY_LAST_CONTENT;
    }
    finished = true;
    boolean whole = queued;
    try {
      channel
          .eventLoop()
          .execute(
              () -> {
                channel.writeAndFlush(last);
                then.accept(whole);
              });
    } catch (RejectedExecutionException e) {
      // The server is stopping: its loops run nothing more, and the connection goes with them.
    }
  }

  /** Called on the event loop when the connection's writability changed or it closed. */
  void wake() {
    synchronized (writable) {
      writable.notifyAll();
    }
  }

  private void ensureWritable() throws IOException {
    if (finished || closedByWriter) {
      throw new IOException("the response is already complete");
    }
    if (!started) {
      throw new IOException("sendResponseHeaders must come before the body");
    }
  }

  private void flushBuffer() throws IOException {
    if (count == 0) {
      return;
    }
    var chunk = Unpooled.copiedBuffer(buffer, 0, count);
    count = 0;
    send(chunk);
  }

  private void send(io.netty.buffer.ByteBuf chunk) throws IOException {
    if (!channel.isActive()) {
      chunk.release();
      throw new IOException("the client closed the connection");
    }
    if (heldHead != null) {
      channel.write(heldHead);
      heldHead = null;
    }
    channel.writeAndFlush(new DefaultHttpContent(chunk));
    awaitWritable();
  }

  private void awaitWritable() throws IOException {
    synchronized (writable) {
      while (!channel.isWritable() && !noWaiting) {
        if (!channel.isActive()) {
          throw new IOException("the client closed the connection");
        }
        try {
          writable.wait();
        } catch (InterruptedException e) {
          channel.close();
          throw new InterruptedIOException(
              "interrupted while the client was not reading; connection closed");
        }
      }
    }
  }
}
