package dev.quartermaster.server.http;

import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.handler.codec.http.DefaultHttpContent;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.LastHttpContent;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.io.OutputStream;

/**
 * A response body written by a blocking handler thread onto a connection's event loop.
 *
 * <p>Back-pressure is what bounds memory: after each chunk the writer waits while the connection's
 * outbound buffer is past its high-water mark, so a client that reads slowly holds the writer, never
 * an unbounded queue of bytes. The wait ends when the buffer drains, the connection closes (the write
 * fails with an {@link IOException}) or the writer is interrupted (the connection is closed and the
 * write fails with an {@link InterruptedIOException}): that last is how a watch's write timeout frees
 * a writer whose client stopped reading.
 */
final class ChannelOutput extends OutputStream {
  private static final int CHUNK = 8 * 1024;

  private final Channel channel;
  private final Object writable = new Object();
  private final byte[] buffer = new byte[CHUNK];
  private int count;
  private boolean started;
  private boolean finished;

  ChannelOutput(Channel channel) {
    this.channel = channel;
  }

  /** Queues the response head; a streamed answer sends it at once, so the client sees its status. */
  void start(HttpResponse head, boolean flushNow) {
    started = true;
    if (flushNow) {
      channel.writeAndFlush(head);
    } else {
      channel.write(head);
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
  public void flush() throws IOException {
    if (!finished) {
      flushBuffer();
    }
  }

  /** Ends the body (the exchange's close): what is buffered, then the last chunk marker. */
  @Override
  public void close() throws IOException {
    if (finished) {
      return;
    }
    try {
      flushBuffer();
    } finally {
      finished = true;
      channel.writeAndFlush(LastHttpContent.EMPTY_LAST_CONTENT);
    }
  }

  boolean finished() {
    return finished;
  }

  /** Called on the event loop when the connection's writability changed or it closed. */
  void wake() {
    synchronized (writable) {
      writable.notifyAll();
    }
  }

  private void ensureWritable() throws IOException {
    if (finished) {
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
    channel.writeAndFlush(new DefaultHttpContent(chunk));
    awaitWritable();
  }

  private void awaitWritable() throws IOException {
    synchronized (writable) {
      while (!channel.isWritable()) {
        if (!channel.isActive()) {
          throw new IOException("the client closed the connection");
        }
        try {
          writable.wait();
        } catch (InterruptedException e) {
          channel.close();
          throw new InterruptedIOException("interrupted while the client was not reading; connection closed");
        }
      }
    }
  }
}
