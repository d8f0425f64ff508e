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
import dev.quartermaster.server.http.StreamOutput;
import java.io.IOException;
import java.io.OutputStream;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * One watch stream. The {@link dev.quartermaster.api.client.ApiClient} calls this handler on its
 * own thread; the handler only enqueues. The request's thread is the single writer: it takes items
 * in order, filters, writes one JSON line each and flushes, so no two threads ever write the
 * response.
 *
 * <p>What one slow client can pin is bounded twice: at most {@code queueCapacity} events, and at
 * most {@code maxQueueBytes} of lines it has not taken, counted where the server holds them (this
 * stream's queue, and its connection's outbound buffer). Past either the stream is cut: the queue
 * is dropped, the writer stops waiting for the client, and the stream ends with a 410 {@code ERROR}
 * line ({@code watch cut: the client fell N bytes behind (limit M); list again ...}), which the
 * client reads after what it was sent already; clients answer 410 by listing again, as they do
 * Kubernetes' 410 Gone and etcd's compacted. The lines are encoded once for all streams and queued
 * and sent as they are, never copied per stream, so many slow watchers pin the same bytes. A client
 * that stops reading while nothing more is written blocks the writer, and never falls further
 * behind: a watchdog interrupts a write blocked longer than {@code writeTimeout}, which closes the
 * connection.
 *
 * <p>The response status is decided by the first item: a compacted history before anything else
 * becomes a 410 answer; anything else (including the first keep-alive tick, due after the grace
 * period) commits a 200 stream, after which a compaction is an {@code ERROR} line.
 */
final class WatchSession<T extends ApiObject> implements WatchHandler<T> {
  /** What the kernel may hold of a watch connection's unsent lines (Linux doubles it). */
  static final int SOCKET_BUFFER_BYTES = 128 << 10;

  private final Kind<T> kind;
  private final long afterRevision;
  private final Env env;
  private final WatchSettings settings;
  private final SelectorFilter filter;
  private final EventLines lines;
  private final Metrics metrics;
  private final BlockingQueue<StreamItem> queue;

  /** The encoded size of the changes queued. */
  private final AtomicLong queuedBytes = new AtomicLong();

  /** The most this stream held for its client at once (queued and unsent): for tests. */
  private final AtomicLong mostBehind = new AtomicLong();

  /** The answer's body, once the writer runs: where the lines not yet taken by the client wait. */
  private volatile Optional<StreamOutput> output = Optional.empty();

  /**
   * Set when the stream must end now, whatever is still queued (client too slow, server stopping).
   */
  private final AtomicReference<StreamItem.End> abort = new AtomicReference<>();

  private volatile boolean finished;
  private volatile Env.Cancellable timer = () -> false;
  private volatile Env.Cancellable watchdog = () -> false;

  /** The writer's thread, once it runs: what the watchdog interrupts. */
  private volatile Thread writer;

  /**
   * When the write in progress began ({@link Env#nanoTime}), or {@link Long#MIN_VALUE} when none
   * is.
   */
  private volatile long writingSince = Long.MIN_VALUE;

  /**
   * The highest revision the writer took from the queue; read by the callback thread for the "too
   * slow" line.
   */
  private volatile long lastRevision;

  /** Whether the store said its replay is done ({@link #onCaughtUp}); the writer's own. */
  private boolean caughtUp;

  /** Whether a keep-alive came before that; the writer's own. */
  private boolean tickedBeforeCaughtUp;

  WatchSession(
      Kind<T> kind,
      long afterRevision,
      LabelSelector selector,
      Env env,
      WatchSettings settings,
      EventLines lines,
      Metrics metrics) {
    this.kind = kind;
    this.metrics = metrics;
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
    if (abort.get() != null) {
      return; // the stream is ending: queue nothing more
    }
    // The shared line, encoded once for all streams: queued and sent as it is. Its size is what
    // this event costs the stream (a selector may later change the type, and so the line, by a few
    // bytes).
    var line = lines.line(event);
    long behind = queuedBytes.addAndGet(line.length) + unsent();
    if (behind > settings.maxQueueBytes()) {
      cut("the client fell " + behind + " bytes behind (limit " + settings.maxQueueBytes() + ")");
      return;
    }
    if (!queue.offer(new StreamItem.Change(event, line, env.nanoTime()))) {
      cut(
          "the client fell "
              + settings.queueCapacity()
              + " events behind (limit "
              + settings.queueCapacity()
              + ")");
      return;
    }
    mostBehind.accumulateAndGet(behind, Math::max);
  }

  /** Bytes written to the client's connection that it has not taken. */
  private long unsent() {
    return output.map(StreamOutput::pendingBytes).orElse(0L);
  }

  /** The bytes of the changes queued now, not yet taken by the writer. */
  long queuedBytes() {
    return queuedBytes.get();
  }

  /** The most this stream held for its client at once, in bytes (queued and unsent). */
  long mostBehindBytes() {
    return mostBehind.get();
  }

  @Override
  public void onCaughtUp(long revision) {
    enqueue(new StreamItem.CaughtUp(revision));
  }

  @Override
  public void onGone(long compactedRevision) {
    enqueue(new StreamItem.Gone(compactedRevision));
  }

  @Override
  public void onClosed(String reason) {
    enqueue(
        new StreamItem.End(
            ApiError.of(Reason.Unavailable, kind.plural() + " watch ended: " + reason)));
  }

  /** Ends the stream at the writer's next step, e.g. because the server is stopping. */
  void abort(ApiError error) {
    abort.compareAndSet(null, new StreamItem.End(error));
    queue.offer(new StreamItem.Tick()); // wakes an idle writer; a full queue means it is not idle
  }

  private void enqueue(StreamItem item) {
    if (!queue.offer(item)) {
      cut(
          "the client fell "
              + settings.queueCapacity()
              + " events behind (limit "
              + settings.queueCapacity()
              + ")");
    }
  }

  /**
   * The client reads too slowly: drop what is queued (the memory is the point), stop waiting for
   * the client, and end the stream with a 410 line after what it was sent. 410 is what clients
   * answer by listing again, which is the only way to recover the dropped events.
   */
  private void cut(String why) {
    var error =
        new ApiError(
            410,
            Reason.Gone,
            kind.plural()
                + " watch cut: "
                + why
                + "; list again and watch from the list's revision (the last revision sent was "
                + lastRevision
                + ")",
            List.of());
    if (abort.compareAndSet(null, new StreamItem.End(error))) {
      metrics.watchClosed("too_slow");
    }
    queue.clear();
    queuedBytes.set(0);
    // A writer blocked on the client writes the 410 line at once (into the connection's buffer,
    // which the client reads first) instead of waiting for it to read.
    output.ifPresent(StreamOutput::stopWaiting);
    queue.offer(new StreamItem.Tick()); // wakes an idle writer
  }

  /** Writes the stream until it ends or the client goes away; returns the HTTP status sent. */
  int run(HttpExchange exchange) throws IOException, InterruptedException {
    writer = Thread.currentThread();
    scheduleTick(settings.firstResponseGrace());
    scheduleWatchdog();
    try {
      var first = next();
      if (first instanceof StreamItem.Gone gone) {
        exchange
            .getResponseHeaders()
            .set(HttpWire.COMPACTED_REVISION_HEADER, Long.toString(gone.compactedRevision()));
        return Exchanges.send(exchange, ErrorResponses.reply(goneError(gone.compactedRevision())));
      }
      if (first instanceof StreamItem.End end) {
        return Exchanges.send(exchange, ErrorResponses.reply(end.error()));
      }
      exchange.getResponseHeaders().set("Content-Type", "application/x-ndjson");
      exchange.sendResponseHeaders(200, 0); // chunked
      var out = exchange.getResponseBody();
      if (out instanceof StreamOutput stream) {
        // A watch is a trickle of lines: a small socket buffer is plenty, and what a client does
        // not take then waits in this stream's queue and its connection's buffer, where the bound
        // counts it, instead of megabytes per connection in the kernel.
        stream.capSocketBuffer(SOCKET_BUFFER_BYTES);
        output = Optional.of(stream);
        if (abort.get() != null) {
          stream.stopWaiting(); // cut before the output was known
        }
      }
      for (var item = first; write(out, item); item = next()) {
        // each write flushed its line
      }
      return 200;
    } finally {
      finished = true;
      timer.cancel();
      watchdog.cancel();
      queue.clear();
      // A watchdog interrupt that raced with the end of a write must not leak into the request's
      // thread.
      Thread.interrupted();
    }
  }

  private StreamItem next() throws InterruptedException {
    var item = queue.take();
    if (item instanceof StreamItem.Change change) {
      queuedBytes.addAndGet(-change.bytes());
    }
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
        // The line queued with the change, unless a selector changed the event (encoded once too).
        var line = shown.get() == change.event() ? change.line() : lines.line(shown.get());
        timed(
            () -> {
              if (out instanceof StreamOutput stream) {
                stream.writeLine(line); // shared with every stream that sends it: not copied
              } else {
                out.write(line);
                out.flush();
              }
            });
        metrics.watchDelivered(Duration.ofNanos(env.nanoTime() - change.queuedAt()));
      }
      case StreamItem.Tick _ -> {
        // Before the store said its replay is done, a bookmark could only name where the replay has
        // got to (0 for a quiet kind): the first tick sends just the response's head, and only a
        // store that stays silent past it gets keep-alives of that kind.
        if (caughtUp || tickedBeforeCaughtUp) {
          line(out, WatchLine.bookmark(lastRevision));
        } else {
          timed(out::flush);
        }
        tickedBeforeCaughtUp = true;
      }
      case StreamItem.CaughtUp c -> {
        lastRevision = Math.max(lastRevision, c.revision());
        caughtUp = true;
        line(out, WatchLine.bookmark(lastRevision)); // the revision the stream starts from
      }
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

  private void line(OutputStream out, WatchLine line) throws IOException {
    byte[] bytes;
    try {
      bytes = ObjectCodec.json().writeValueAsBytes(line);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("a watch line does not encode", e);
    }
    timed(
        () -> {
          out.write(bytes);
          out.write('\n');
          out.flush(); // one chunk per line: a watcher sees each event as it happens
        });
  }

  private interface Write {
    void run() throws IOException;
  }

  /** Runs a write the watchdog may cut short. */
  private void timed(Write write) throws IOException {
    writingSince = env.nanoTime();
    try {
      write.run();
    } finally {
      writingSince = Long.MIN_VALUE;
    }
  }

  /**
   * Checks twice per write timeout for a write blocked past it, and interrupts the writer: the
   * socket channel under the response is interruptible, so the interrupt closes the connection and
   * the blocked write throws. Nothing else frees a writer whose client stopped reading.
   */
  private void scheduleWatchdog() {
    var period = settings.writeTimeout().dividedBy(2);
    watchdog =
        env.schedule(
            period.isPositive() ? period : settings.writeTimeout(),
            () -> {
              if (finished) {
                return;
              }
              long since = writingSince;
              if (since != Long.MIN_VALUE
                  && env.nanoTime() - since >= settings.writeTimeout().toNanos()) {
                metrics.watchClosed("write_timeout");
                abort.compareAndSet(
                    null,
                    new StreamItem.End(
                        ApiError.of(
                            Reason.Unavailable,
                            kind.plural()
                                + " watch: the client did not read for "
                                + settings.writeTimeout())));
                queue.clear(); // free what is queued now, not when the interrupted write unwinds
                writer.interrupt();
                return;
              }
              scheduleWatchdog();
            });
  }

  private ApiError goneError(long compactedRevision) {
    return new ApiError(
        410,
        Reason.Gone,
        kind.plural()
            + ": the history after revision "
            + afterRevision
            + " was compacted (compacted revision "
            + compactedRevision
            + "); list again and watch from the list's revision",
        List.of(new Violation(HttpWire.PARAM_REVISION, "must be >= " + compactedRevision)));
  }

  /** Keep-alive ticks go through the queue like everything else, so only the writer writes. */
  private void scheduleTick(Duration delay) {
    timer =
        env.schedule(
            delay,
            () -> {
              if (!finished) {
                queue.offer(new StreamItem.Tick()); // a full queue already keeps the line busy
                scheduleTick(settings.bookmarkInterval());
              }
            });
  }
}
