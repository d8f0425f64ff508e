package dev.quartermaster.agent.health;

import dev.quartermaster.core.env.Env;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * A simulated root's health source: every {@code period} it reads {@code <root>/health/<device>}
 * for each device and tells the tracker. The file is a level, not an event: {@code healthy} (or no
 * file) reports nothing, {@code xid <n> <text>} reports that XID on every read, so a device stays
 * unhealthy while its file says so and recovers a clean period after it stops. Anything else is a
 * fault naming the file (fail closed). Without a {@code health} directory monitoring cannot start,
 * and the tracker says so. Runs entirely on {@link Env#schedule}, so it works in virtual time.
 */
public final class HealthFileSource {
  private final Env env;
  private final Path dir;
  private final List<String> devices;
  private final Duration period;
  private final HealthTracker tracker;
  private Env.Cancellable next = () -> false;
  private boolean stopped;

  public HealthFileSource(
      Env env, Path root, List<String> devices, Duration period, HealthTracker tracker) {
    this.env = Objects.requireNonNull(env, "env");
    this.dir = root.resolve("health");
    this.devices = List.copyOf(devices);
    this.period = Objects.requireNonNull(period, "period");
    this.tracker = Objects.requireNonNull(tracker, "tracker");
  }

  /** Starts polling (the first read happens now), or reports why monitoring cannot start. */
  public synchronized void start() {
    if (!Files.isDirectory(dir)) {
      tracker.monitorFailed("health monitoring cannot start: no health directory " + dir);
      return;
    }
    tracker.monitoring(devices);
    poll();
  }

  public synchronized void stop() {
    stopped = true;
    next.cancel();
  }

  private void poll() {
    synchronized (this) {
      if (stopped) {
        return;
      }
    }
    for (var device : devices) {
      readOne(device);
    }
    synchronized (this) {
      if (!stopped) {
        next = env.schedule(period, this::poll);
      }
    }
  }

  private void readOne(String device) {
    var file = dir.resolve(device);
    String text;
    try {
      text = Files.readString(file, StandardCharsets.UTF_8).strip();
    } catch (NoSuchFileException e) {
      return;
    } catch (IOException e) {
      tracker.fault(device, "cannot read health file " + file + ": " + e.getMessage());
      return;
    }
    if (text.isEmpty() || text.equalsIgnoreCase("healthy")) {
      return;
    }
    var parts = text.split("\\s+", 3);
    if (parts.length >= 2 && parts[0].equalsIgnoreCase("xid")) {
      try {
        tracker.xid(device, Long.parseLong(parts[1]), parts.length == 3 ? parts[2] : "");
        return;
      } catch (NumberFormatException e) {
        // falls through to "cannot parse"
      }
    }
    tracker.fault(
        device,
        "health file " + file + " says '" + text + "' (expected 'healthy' or 'xid <n> <text>')");
  }
}
