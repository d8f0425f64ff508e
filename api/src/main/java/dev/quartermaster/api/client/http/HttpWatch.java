package dev.quartermaster.api.client.http;

import dev.quartermaster.api.client.WatchEvent;
import dev.quartermaster.api.client.WatchHandle;
import dev.quartermaster.api.client.WatchHandler;
import dev.quartermaster.api.codec.ObjectCodec;
import dev.quartermaster.api.error.ApiError;
import dev.quartermaster.api.error.ApiException;
import dev.quartermaster.api.meta.ApiObject;
import dev.quartermaster.api.meta.Kind;
import dev.quartermaster.core.env.OutsideEnv;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.function.Consumer;

/**
 * One watch stream being read: a single reader task decodes each {@link WatchLine} and calls the
 * handler, so calls come in stream order and never overlap. After {@link #close()} returns (from
 * any thread but the handler's own) the handler is not called again.
 */
@OutsideEnv("a watch stream's silence is timed on the wall clock of the reading process")
final class HttpWatch<T extends ApiObject> implements WatchHandle {
  /**
   * How long a stream may stay silent before it counts as lost. The server writes a BOOKMARK line
   * on a stream idle for 10 s; three missed mean the connection is gone. A partition that outlasts
   * the server's patience ends the server's side while ours still reads, and a connection nobody
   * writes on never learns it is dead: an agent's informers went silent for good after a 72 s cut
   * in the partitions harness, while its heartbeats (new requests) worked.
   */
  static final Duration SILENCE = Duration.ofSeconds(30);

  private final Kind<T> kind;
  private final InputStream body;
  private final WatchHandler<T> handler;
  private final URI uri;
  private final Consumer<HttpWatch<?>> onEnd;
  private final Object delivery = new Object();
  private volatile boolean closed;
  private volatile Thread reader;
  private final Duration silence;
  private volatile long lastWord = System.nanoTime();

  HttpWatch(
      Kind<T> kind,
      InputStream body,
      WatchHandler<T> handler,
      URI uri,
      Consumer<HttpWatch<?>> onEnd) {
    this(kind, body, handler, uri, onEnd, SILENCE);
  }

  /** As the other, a stream counting as lost after {@code silence} without a line (tests). */
  HttpWatch(
      Kind<T> kind,
      InputStream body,
      WatchHandler<T> handler,
      URI uri,
      Consumer<HttpWatch<?>> onEnd,
      Duration silence) {
    this.kind = kind;
    this.body = body;
    this.handler = handler;
    this.uri = uri;
    this.onEnd = onEnd;
    this.silence = silence;
  }

  void start(ExecutorService executor) {
    executor.execute(this::read);
    executor.execute(this::watchSilence);
  }

  /**
   * Ends the stream once it has been silent for {@link #silence}: the handler hears it closed (an
   * informer lists again, on a new connection), and the body is closed, which wakes the reader.
   */
  private void watchSilence() {
    while (!closed) {
      long quiet = System.nanoTime() - lastWord;
      if (quiet >= silence.toNanos()) {
        end(
            "no word from "
                + uri
                + " for "
                + silence.toMillis() / 1000.0
                + " s, though the server writes a bookmark every 10 s: the connection is"
                + " presumed lost");
        try {
          body.close();
        } catch (IOException ignored) {
          // the reader ends either way: delivery is over
        }
        return;
      }
      try {
        Thread.sleep(
            Duration.ofNanos(Math.min(silence.toNanos() / 3 + 1, silence.toNanos() - quiet)));
      } catch (InterruptedException e) {
        return;
      }
    }
  }

  @Override
  public void close() {
    closed = true;
    try {
      body.close(); // wakes a reader blocked on the socket; the connection is dropped, not reused
    } catch (IOException ignored) {
      // closing is best effort; the closed flag already stops delivery
    }
    if (Thread.currentThread() != reader) {
      // Wait out a delivery in progress, so no handler call happens after close returns.
      synchronized (delivery) {
        onEnd.accept(this);
      }
    }
  }

  private void read() {
    reader = Thread.currentThread();
    try (var lines = new BufferedReader(new InputStreamReader(body, StandardCharsets.UTF_8))) {
      String line;
      while ((line = lines.readLine()) != null) {
        lastWord = System.nanoTime();
        if (!line.isBlank() && !deliver(decode(line))) {
          return;
        }
      }
      end("the server ended the watch stream of " + uri);
    } catch (IOException e) {
      end("watch stream of " + uri + " lost: " + e.getMessage());
    } catch (ApiException e) {
      end(e.getMessage());
    } catch (RuntimeException e) {
      // The handler threw: the watch cannot go on from a half-applied event.
      end("the watch handler of " + uri + " failed: " + e);
    } finally {
      onEnd.accept(this);
    }
  }

  /** Hands one line to the handler; false when the stream is over. */
  private boolean deliver(WatchLine line) {
    synchronized (delivery) {
      if (closed) {
        return false;
      }
      switch (line.type()) {
        case ADDED -> handler.onEvent(new WatchEvent<>(WatchEvent.Type.ADDED, object(line)));
        case MODIFIED -> handler.onEvent(new WatchEvent<>(WatchEvent.Type.MODIFIED, object(line)));
        case DELETED -> handler.onEvent(new WatchEvent<>(WatchEvent.Type.DELETED, object(line)));
        case BOOKMARK -> {} // a keep-alive: nothing for the handler
        case ERROR -> {
          var error =
              line.error()
                  .orElse(ApiError.of(ApiError.Reason.Internal, "watch ended with an error"));
          closed = true;
          if (error.reason() == ApiError.Reason.Gone) {
            handler.onGone(line.compactedRevision().orElse(0L));
          } else {
            handler.onClosed(error.message());
          }
          return false;
        }
      }
      return true;
    }
  }

  private void end(String reason) {
    synchronized (delivery) {
      if (!closed) {
        closed = true;
        handler.onClosed(reason);
      }
    }
  }

  private WatchLine decode(String line) {
    try {
      var decoded = ObjectCodec.json().readValue(line, WatchLine.class);
      if (decoded.type() == null) {
        throw new IOException("a watch line without a type");
      }
      return decoded;
    } catch (IOException | RuntimeException e) {
      throw ResponseErrors.undecodable(uri, e);
    }
  }

  private T object(WatchLine line) {
    var object =
        line.object()
            .orElseThrow(
                () ->
                    ResponseErrors.undecodable(
                        uri, new IOException("a " + line.type() + " line without an object")));
    return ObjectCodec.requireKind(object, kind);
  }
}
