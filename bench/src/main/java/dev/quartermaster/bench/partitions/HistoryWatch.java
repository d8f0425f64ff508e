package dev.quartermaster.bench.partitions;

import dev.quartermaster.cli.commands.ServerCommand;
import dev.quartermaster.core.env.SystemEnv;
import dev.quartermaster.sim.world.HistoryPromises;
import dev.quartermaster.store.StoreEvent;
import dev.quartermaster.store.Watch;
import dev.quartermaster.store.WatchListener;
import dev.quartermaster.store.etcd.EtcdStore;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The lab's store judged at every revision, not only at samples: a watch of etcd's whole history
 * from the cluster's first write feeds {@link HistoryPromises} one transaction at a time (I1 in the
 * store, G1–G3, OWNER, TERM — the leader's term keys too, so the whole prefix — and Q1). A
 * transaction's events arrive together in one watch response, so one is complete when an event of a
 * later revision arrives, or when none has come for a moment. A watch that ends (its member lost
 * etcd's leader, or was cut) is opened again after the last revision judged: nothing is skipped.
 */
final class HistoryWatch implements AutoCloseable {
  private static final long QUIET_NANOS = 150_000_000L;

  /**
   * gRPC's own logger, kept (a logger nobody holds may be collected with its level): etcd answers
   * the watch's idle keepalive pings with {@code GOAWAY ENHANCE_YOUR_CALM}, the client backs off by
   * itself, and each such warning went into the bench's report.
   */
  private static final java.util.logging.Logger GRPC =
      java.util.logging.Logger.getLogger("io.grpc");

  private final EtcdStore store;
  private final HistoryPromises promises = new HistoryPromises(new SystemEnv());
  private final Set<String> found = new LinkedHashSet<>();
  private final Set<String> seen = new java.util.HashSet<>();
  private final List<StoreEvent> pending = new ArrayList<>();
  private long pendingRevision = -1;
  private long lastEventAt;
  private long judged;
  private Watch watch = () -> {};
  private boolean closed;
  private final Thread ticker;

  HistoryWatch(List<String> endpoints) {
    GRPC.setLevel(java.util.logging.Level.SEVERE);
    this.store = new EtcdStore(endpoints, ServerCommand.DEFAULT_ETCD_PREFIX);
    watchFrom(0);
    ticker =
        Thread.ofPlatform()
            .daemon()
            .name("history-watch")
            .start(
                () -> {
                  while (!Thread.currentThread().isInterrupted()) {
                    flushIfQuiet();
                    try {
                      Thread.sleep(100);
                    } catch (InterruptedException e) {
                      return;
                    }
                  }
                });
  }

  private synchronized void watchFrom(long after) {
    if (closed) {
      return;
    }
    watch.close();
    watch =
        store.watch(
            "/",
            after,
            new WatchListener() {
              @Override
              public void onEvent(StoreEvent event) {
                arrived(event);
              }

              @Override
              public void onCompacted(long compactedRevision) {
                note("history: compacted at " + compactedRevision + " before it was judged");
              }

              @Override
              public void onClosed(String reason) {
                reopen();
              }
            });
  }

  private void reopen() {
    Thread.ofPlatform()
        .daemon()
        .start(
            () -> {
              try {
                Thread.sleep(500);
                long after;
                synchronized (this) {
                  flush();
                  after = judged;
                }
                watchFrom(after);
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              } catch (RuntimeException e) {
                reopen(); // etcd did not answer: try again
              }
            });
  }

  private synchronized void arrived(StoreEvent event) {
    long revision = event.kv().modRevision();
    if (revision <= judged) {
      return; // replayed after a reopen
    }
    if (revision != pendingRevision) {
      flush();
      pendingRevision = revision;
    }
    pending.add(event);
    lastEventAt = System.nanoTime();
  }

  private synchronized void flushIfQuiet() {
    if (!pending.isEmpty() && System.nanoTime() - lastEventAt > QUIET_NANOS) {
      flush();
    }
  }

  private void flush() {
    if (pending.isEmpty()) {
      return;
    }
    promises.committed(pendingRevision, List.copyOf(pending));
    judged = pendingRevision;
    pending.clear();
    for (var line : promises.check()) {
      if (seen.add(line)) {
        note(line + " (first at revision " + judged + ")");
      }
    }
  }

  private synchronized void note(String line) {
    found.add(line);
  }

  /** Every broken promise seen so far, once each, and forgets them. */
  synchronized List<String> drain() {
    var out = List.copyOf(found);
    found.clear();
    return out;
  }

  /** The last revision judged. */
  synchronized long judged() {
    return judged;
  }

  @Override
  public void close() {
    synchronized (this) {
      closed = true;
      watch.close();
    }
    ticker.interrupt();
    store.close();
  }
}
