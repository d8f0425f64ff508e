package dev.quartermaster.store.sqlite;

import dev.quartermaster.core.env.OutsideEnv;
import dev.quartermaster.store.StoreEvent;
import dev.quartermaster.store.Watch;
import dev.quartermaster.store.WatchListener;
import java.util.ArrayDeque;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One watch: its own virtual thread first replays history from the log, then delivers live events
 * from a bounded queue that the hub fills. Every listener call happens on that thread, under {@code
 * deliveryLock}, after checking that the watch still runs; {@link #close} takes the same lock, so
 * once it returns no further call can start.
 */
@OutsideEnv("a watch's reader thread on a real database file")
final class SqliteWatch implements Watch {
  private static final Logger LOG = LoggerFactory.getLogger(SqliteWatch.class);
  private static final int REPLAY_PAGE = 512;

  /** Whether the watch runs, and if not, why it stopped. The first ending wins. */
  sealed interface State {
    record Running() implements State {}

    record ClosedByCaller() implements State {}

    record Closed(String reason) implements State {}

    record Compacted(long compactedRevision) implements State {}
  }

  private static final State RUNNING = new State.Running();

  private final String prefix;

  /**
   * The route it hears ({@link dev.quartermaster.store.Audience}); empty: every change under its
   * prefix.
   */
  private final Optional<String> route;

  private final long afterRevision;
  private final WatchListener listener;
  private final int capacity;
  private final LogReader log;
  private final WatchHub hub;

  private final ReentrantLock queueLock = new ReentrantLock();
  private final Condition changed = queueLock.newCondition();
  private final ArrayDeque<StoreEvent> queue = new ArrayDeque<>(); // guarded by queueLock
  private volatile State state = RUNNING; // written under queueLock

  private final ReentrantLock deliveryLock = new ReentrantLock();
  private volatile boolean closedByCaller;

  SqliteWatch(
      String prefix,
      Optional<String> route,
      long afterRevision,
      WatchListener listener,
      int capacity,
      LogReader log,
      WatchHub hub) {
    this.prefix = prefix;
    this.route = route;
    this.afterRevision = afterRevision;
    this.listener = listener;
    this.capacity = capacity;
    this.log = log;
    this.hub = hub;
  }

  /** Starts delivery; the log already holds every event up to {@code upTo}, the hub the rest. */
  void start(long upTo) {
    Thread.ofVirtual().name("qm-watch " + prefix).start(() -> run(upTo));
  }

  int capacity() {
    return capacity;
  }

  String prefix() {
    return prefix;
  }

  Optional<String> route() {
    return route;
  }

  /**
   * Queues the live events of one commit under this watch's prefix (those after its start
   * revision), with one lock and one wake-up; false when the queue is full. Called by the hub,
   * under its lock.
   */
  boolean offer(List<StoreEvent> events) {
    queueLock.lock();
    try {
      if (state != RUNNING) {
        return true; // ending anyway; nothing more will be delivered
      }
      boolean added = false;
      for (var event : events) {
        if (event.revision() <= afterRevision) {
          continue;
        }
        if (queue.size() >= capacity) {
          return false;
        }
        queue.addLast(event);
        added = true;
      }
      if (added) {
        changed.signal();
      }
      return true;
    } finally {
      queueLock.unlock();
    }
  }

  void end(State ending) {
    queueLock.lock();
    try {
      if (state == RUNNING) {
        state = ending;
        queue.clear();
        changed.signal();
      }
    } finally {
      queueLock.unlock();
    }
  }

  @Override
  public void close() {
    closedByCaller = true;
    end(new State.ClosedByCaller());
    hub.remove(this);
    // Wait for a listener call in flight to finish. The lock is reentrant, so a listener that
    // closes its own watch does not wait for itself.
    deliveryLock.lock();
    deliveryLock.unlock();
  }

  private void run(long upTo) {
    try {
      if (replay(upTo) && caughtUp(Math.max(upTo, afterRevision))) {
        deliverLive();
      }
    } catch (RuntimeException e) {
      end(new State.Closed("watch failed: " + e.getMessage()));
    } finally {
      hub.remove(this);
      finish();
    }
  }

  /** Delivers the logged changes up to {@code upTo}; false if the watch ended meanwhile. */
  private boolean replay(long upTo) {
    long lastRevision = afterRevision;
    long lastId = Long.MAX_VALUE; // with lastRevision: "everything after afterRevision"
    boolean delivered = false;
    while (state == RUNNING) {
      LogReader.HistoryPage page = log.history(prefix, upTo, lastRevision, lastId, REPLAY_PAGE);
      // Compaction removes rows at or below its revision; the rows not yet delivered lie above
      // afterRevision, or at or above the revision of the last delivered one.
      boolean lost = delivered ? page.compacted() >= lastRevision : page.compacted() > lastRevision;
      if (lost) {
        end(new State.Compacted(page.compacted()));
        return false;
      }
      for (LogReader.Change change : page.changes()) {
        if (!deliver(change.event())) {
          return false;
        }
        lastRevision = change.event().revision();
        lastId = change.id();
        delivered = true;
      }
      if (page.changes().size() < REPLAY_PAGE) {
        return true;
      }
    }
    return false;
  }

  /**
   * The watch's life: a loop that only calls {@link #deliverNext}. The loop's frame lasts as long
   * as the watch; a frame of a method the JIT later deoptimizes goes on interpreted, and with
   * hundreds of watches parked in it that was a few per cent of the process's CPU. The work of each
   * event is in a method each call enters afresh, so it runs compiled.
   */
  private void deliverLive() {
    while (deliverNext()) {
      // each turn one event
    }
  }

  /** Waits for the next live event and delivers it; false once the watch ended. */
  private boolean deliverNext() {
    StoreEvent event;
    queueLock.lock();
    try {
      while (queue.isEmpty() && state == RUNNING) {
        changed.awaitUninterruptibly();
      }
      if (state != RUNNING) {
        return false;
      }
      event = queue.pollFirst();
    } finally {
      queueLock.unlock();
    }
    return deliver(event);
  }

  private boolean deliver(StoreEvent event) {
    return tell(() -> listener.onEvent(event));
  }

  /** Tells the listener the replay reached {@code revision}; false once the watch ended. */
  private boolean caughtUp(long revision) {
    return tell(() -> listener.onCaughtUp(revision));
  }

  /**
   * One call to the listener while the watch runs, under the delivery lock; false once the watch
   * ended.
   */
  private boolean tell(Runnable call) {
    deliveryLock.lock();
    try {
      if (state != RUNNING || closedByCaller) {
        return false;
      }
      call.run();
      return true;
    } catch (RuntimeException e) {
      LOG.warn("watch listener for prefix '{}' failed; ending the watch", prefix, e);
      end(new State.Closed("listener failed: " + e));
      return false;
    } finally {
      deliveryLock.unlock();
    }
  }

  /** Tells the listener why the watch ended, unless its owner closed it. */
  private void finish() {
    deliveryLock.lock();
    try {
      if (closedByCaller) {
        return;
      }
      switch (state) {
        case State.Closed c -> listener.onClosed(c.reason());
        case State.Compacted c -> listener.onCompacted(c.compactedRevision());
        case State.Running r -> LOG.error("watch for prefix '{}' stopped while running", prefix);
        case State.ClosedByCaller c -> {}
      }
    } catch (RuntimeException e) {
      LOG.warn("watch listener for prefix '{}' failed while being told the watch ended", prefix, e);
    } finally {
      deliveryLock.unlock();
    }
  }
}
