package dev.quartermaster.server;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.sun.net.httpserver.HttpExchange;
import dev.quartermaster.api.client.LabelSelector;
import dev.quartermaster.api.client.WatchEvent;
import dev.quartermaster.api.client.WatchHandler;
import dev.quartermaster.api.client.http.HttpWire;
import dev.quartermaster.api.client.http.WatchLine;
import dev.quartermaster.api.codec.ObjectCodec;
import dev.quartermaster.api.error.ApiError;
import dev.quartermaster.api.error.ApiError.Reason;
import dev.quartermaster.api.error.Violation;
import dev.quartermaster.api.meta.ApiObject;
import dev.quartermaster.api.meta.Kind;
import dev.quartermaster.core.env.Env;
import java.io.IOException;
import java.io.OutputStream;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.atomic.AtomicReference;

/**
 * One watch stream. The {@link dev.quartermaster.api.client.ApiClient} calls this handler on its own
 * thread; the handler only enqueues. The request's thread is the single writer: it takes items in
 * order, filters, writes one JSON line each and flushes, so no two threads ever write the response.
 *
 * <p>The response status is decided by the first item: a compacted history before anything else
 * becomes a 410 answer; anything else (including the first keep-alive tick, due after the grace
 * period) commits a 200 stream, after which a compaction is an {@code ERROR} line.
 */
final class WatchSession<T extends ApiObject> implements WatchHandler<T> {
  private final Kind<T> kind;
  private final long afterRevision;
  private final Env env;
  private final WatchSettings settings;
  private final SelectorFilter filter;
  private final EventLines lines;
  private final BlockingQueue<StreamItem> queue;
  /** Set when the stream must end now, whatever is still queued (client too slow, server stopping). */
  private final AtomicReference<StreamItem.End> abort = new AtomicReference<>();
  private volatile boolean finished;
  private volatile Env.Cancellable timer = () -> false;
  private long lastRevision;

  WatchSession(Kind<T> kind, long afterRevision, LabelSelector selector, Env env, WatchSettings settings,
      EventLines lines) {
    this.kind = kind;
    this.lines = lines;
    this.afterRevision = afterRevision;
    this.env = env;
    this.settings = settings;
    this.filter = new SelectorFilter(selector);
    this.queue = new LinkedBlockingQueue<>(settings.queueCapacity());
    this.lastRevision = afterRevision;
  }

  @Override
  public void onEvent(WatchEvent<T> event) {
    enqueue(new StreamItem.Change(event));
  }

  @Override
  public void onGone(long compactedRevision) {
    enqueue(new StreamItem.Gone(compactedRevision));
  }

  @Override
  public void onClosed(String reason) {
    enqueue(new StreamItem.End(ApiError.of(Reason.Unavailable, kind.plural() + " watch ended: " + reason)));
  }

  /** Ends the stream at the writer's next step, e.g. because the server is stopping. */
  void abort(ApiError error) {
    abort.compareAndSet(null, new StreamItem.End(error));
    queue.offer(new StreamItem.Tick()); // wakes an idle writer; a full queue means it is not idle
  }

  private void enqueue(StreamItem item) {
    if (!queue.offer(item)) {
      abort(ApiError.of(Reason.Unavailable, kind.plural() + " watch fell behind by " + settings.queueCapacity()
          + " events; list again and watch from the list's revision"));
    }
  }

  /** Writes the stream until it ends or the client goes away; returns the HTTP status sent. */
  int run(HttpExchange exchange) throws IOException, InterruptedException {
    scheduleTick(settings.firstResponseGrace());
    try {
      var first = next();
      if (first instanceof StreamItem.Gone gone) {
        exchange.getResponseHeaders().set(HttpWire.COMPACTED_REVISION_HEADER, Long.toString(gone.compactedRevision()));
        return Exchanges.send(exchange, ErrorResponses.reply(goneError(gone.compactedRevision())));
      }
      if (first instanceof StreamItem.End end) {
        return Exchanges.send(exchange, ErrorResponses.reply(end.error()));
      }
      exchange.getResponseHeaders().set("Content-Type", "application/x-ndjson");
      exchange.sendResponseHeaders(200, 0); // chunked
      var out = exchange.getResponseBody();
      for (var item = first; write(out, item); item = next()) {
        // each write flushed its line
      }
      return 200;
    } finally {
      finished = true;
      timer.cancel();
    }
  }

  private StreamItem next() throws InterruptedException {
    var item = queue.take();
    var aborted = abort.get();
    return aborted != null ? aborted : item;
  }

  /** Writes the line for {@code item}, if any; false when the stream is over. */
  private boolean write(OutputStream out, StreamItem item) throws IOException {
    switch (item) {
      case StreamItem.Change change -> {
        lastRevision = Math.max(lastRevision, change.event().revision());
        var shown = filter.apply(change.event());
        if (shown.isEmpty()) {
          return true;
        }
        out.write(lines.line(shown.get())); // encoded once, shared by every stream that shows it
        out.flush();
      }
      case StreamItem.Tick _ -> line(out, WatchLine.bookmark(lastRevision));
      case StreamItem.Gone gone -> {
        line(out, WatchLine.gone(goneError(gone.compactedRevision()), gone.compactedRevision()));
        return false;
      }
      case StreamItem.End end -> {
        line(out, WatchLine.error(end.error()));
        return false;
      }
    }
    return true;
  }

  private static void line(OutputStream out, WatchLine line) throws IOException {
    try {
      out.write(ObjectCodec.json().writeValueAsBytes(line));
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("a watch line does not encode", e);
    }
    out.write('\n');
    out.flush(); // one chunk per line: a watcher sees each event as it happens
  }

  private ApiError goneError(long compactedRevision) {
    return new ApiError(410, Reason.Gone, kind.plural() + ": the history after revision " + afterRevision
        + " was compacted (compacted revision " + compactedRevision + "); list again and watch from the list's revision",
        List.of(new Violation(HttpWire.PARAM_REVISION, "must be >= " + compactedRevision)));
  }

  /** Keep-alive ticks go through the queue like everything else, so only the writer writes. */
  private void scheduleTick(Duration delay) {
    timer = env.schedule(delay, () -> {
      if (!finished) {
        queue.offer(new StreamItem.Tick()); // a full queue already keeps the line busy
        scheduleTick(settings.bookmarkInterval());
      }
    });
  }
}
