package dev.quartermaster.agent.controlnodes;

import dev.quartermaster.core.env.Env;
import java.io.IOException;
import java.nio.file.ClosedWatchServiceException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardWatchEventKinds;
import java.nio.file.WatchService;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * Re-checks the control nodes on change and tells a listener whenever the status differs from the
 * last one it was told (and once at start). Two triggers: a periodic rescan on {@link Env#schedule}
 * (the guarantee: a node that appears is seen within one period), and, with {@link FileWatch#ON}, a
 * {@link WatchService} on the device directory (the fast path; inotify on {@code /dev}). Each
 * rescan runs a fresh {@link ControlNodeCheck}: the host's tree at that moment.
 *
 * <p>The listener is called under the watcher's lock, in order, and must be quick (update a
 * condition, rewrite specs asynchronously). A simulation (single-threaded {@code Env}) uses {@link
 * FileWatch#OFF}: the file watch blocks a thread of its own.
 */
public final class ControlNodeWatcher implements AutoCloseable {

  /** Whether to watch the device directory besides the periodic rescan. */
  public enum FileWatch {
    ON,
    OFF
  }

  private final Env env;
  private final Supplier<ControlNodeStatus> check;
  private final Optional<Path> watchDir;
  private final Duration period;
  private final Consumer<ControlNodeStatus> listener;
  private Optional<ControlNodeStatus> last = Optional.empty();
  private Env.Cancellable nextRescan = () -> false;
  private Optional<WatchService> watch = Optional.empty();
  private boolean closed;

  private ControlNodeWatcher(
      Env env,
      Supplier<ControlNodeStatus> check,
      Optional<Path> watchDir,
      Duration period,
      Consumer<ControlNodeStatus> listener) {
    this.env = Objects.requireNonNull(env, "env");
    this.check = Objects.requireNonNull(check, "check");
    this.watchDir = Objects.requireNonNull(watchDir, "watchDir");
    this.period = Objects.requireNonNull(period, "period");
    this.listener = Objects.requireNonNull(listener, "listener");
    if (period.isNegative() || period.isZero()) {
      throw new IllegalArgumentException("rescan period must be positive: " + period);
    }
  }

  /** Checks now (telling the listener), then keeps watching until {@link #close()}. */
  public static ControlNodeWatcher start(
      Env env,
      ControlNodeCheck check,
      Duration period,
      FileWatch fileWatch,
      Consumer<ControlNodeStatus> listener) {
    return start(
        env,
        check::check,
        fileWatch == FileWatch.ON ? Optional.of(check.devDir()) : Optional.empty(),
        period,
        listener);
  }

  /**
   * Checks now (telling the listener), then keeps watching until {@link #close()}: every {@code
   * period}, and at once when an entry of {@code watchDir} (if any) is created or deleted.
   */
  public static ControlNodeWatcher start(
      Env env,
      Supplier<ControlNodeStatus> check,
      Optional<Path> watchDir,
      Duration period,
      Consumer<ControlNodeStatus> listener) {
    var watcher = new ControlNodeWatcher(env, check, watchDir, period, listener);
    if (watchDir.isPresent()) {
      watcher.startFileWatch();
    }
    watcher.tick();
    return watcher;
  }

  /** The status from the last rescan. */
  public synchronized ControlNodeStatus current() {
    return last.orElseGet(check);
  }

  /** Checks now and tells the listener if the status changed; returns the status. */
  public synchronized ControlNodeStatus rescan() {
    var status = check.get();
    if (!closed && !last.equals(Optional.of(status))) {
      last = Optional.of(status);
      listener.accept(status);
    }
    return status;
  }

  private void tick() {
    rescan();
    synchronized (this) {
      if (!closed) {
        nextRescan = env.schedule(period, this::tick);
      }
    }
  }

  private void startFileWatch() {
    var dir = watchDir.orElseThrow();
    if (!Files.isDirectory(dir)) {
      return; // The periodic rescan still notices the directory and its nodes appearing.
    }
    try {
      var service = dir.getFileSystem().newWatchService();
      // Create and delete only: writes to a host's ttys would make "modify" fire all the time.
      dir.register(
          service, StandardWatchEventKinds.ENTRY_CREATE, StandardWatchEventKinds.ENTRY_DELETE);
      synchronized (this) {
        watch = Optional.of(service);
      }
      env.execute(() -> watchLoop(service));
    } catch (IOException e) {
      // No inotify (limits, odd file system): the periodic rescan is the guarantee anyway.
    }
  }

  private void watchLoop(WatchService service) {
    try {
      while (true) {
        var key = service.take();
        key.pollEvents(); // which entry changed does not matter: the check looks at all of them
        rescan();
        if (!key.reset()) {
          return; // the directory went away; the periodic rescan carries on
        }
      }
    } catch (ClosedWatchServiceException e) {
      // closed by close()
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  @Override
  public synchronized void close() {
    closed = true;
    nextRescan.cancel();
    watch.ifPresent(
        w -> {
          try {
            w.close();
          } catch (IOException e) {
            // closing anyway
          }
        });
  }
}
