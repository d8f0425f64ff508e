package dev.quartermaster.agent.nvml;

import dev.quartermaster.agent.health.HealthTracker;
import dev.quartermaster.agent.health.InstanceSlices;
import dev.quartermaster.core.env.Env;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.function.Supplier;

/**
 * Feeds a {@link HealthTracker} from NVML XID events: one event set, every GPU registered for
 * {@code nvmlEventTypeXidCriticalError}, and a loop (on {@link Env#execute}) that waits with a
 * bounded timeout so that {@link #close()} is noticed.
 *
 * <p>Fails closed, unlike NVIDIA's plugin (#1640): if NVML does not load, does not initialise or
 * the event set cannot be made, the tracker is told monitoring failed (every device Unknown, not
 * allocatable) with NVML's reason; a GPU that cannot be registered, or that NVML does not list, is
 * Unknown on its own; a wait error other than timeout stops monitoring and marks all Unknown.
 *
 * <p>An I/O edge: it blocks a thread in {@code nvmlEventSetWait_v2}, so it needs a real {@link Env}
 * (production's virtual threads), not a simulation's single-threaded one.
 */
public final class NvmlXidMonitor implements AutoCloseable {
  private final HealthTracker tracker;
  private final InstanceSlices slices;
  private volatile boolean stopped;

  private NvmlXidMonitor(HealthTracker tracker, InstanceSlices slices) {
    this.tracker = tracker;
    this.slices = slices;
  }

  /**
   * Starts watching the GPUs in {@code namesByUuid} (UUID to device name). Never throws for NVML
   * trouble: that is reported to {@code tracker}.
   */
  public static NvmlXidMonitor start(
      Env env,
      Supplier<NvmlLoad> loader,
      Map<String, String> namesByUuid,
      Duration waitTimeout,
      HealthTracker tracker) {
    return start(env, loader, namesByUuid, waitTimeout, tracker, InstanceSlices.NONE);
  }

  /**
   * As above; an XID that names a GPU instance marks the slice {@code slices} finds for it, and the
   * whole GPU when none serves it now (fail closed).
   */
  public static NvmlXidMonitor start(
      Env env,
      Supplier<NvmlLoad> loader,
      Map<String, String> namesByUuid,
      Duration waitTimeout,
      HealthTracker tracker,
      InstanceSlices slices) {
    Objects.requireNonNull(env, "env");
    var monitor = new NvmlXidMonitor(tracker, Objects.requireNonNull(slices, "slices"));
    switch (loader.get()) {
      case NvmlLoad.Unavailable u -> {
        monitor.stopped = true;
        tracker.monitorFailed("XID monitoring cannot start: " + u.reason());
      }
      case NvmlLoad.Loaded l ->
          monitor.begin(env, l.library(), Map.copyOf(namesByUuid), waitTimeout);
    }
    return monitor;
  }

  private void begin(
      Env env, NvmlLibrary nvml, Map<String, String> namesByUuid, Duration waitTimeout) {
    try {
      nvml.init();
    } catch (NvmlException e) {
      nvml.close();
      stopped = true;
      tracker.monitorFailed("XID monitoring cannot start: " + e.getMessage());
      return;
    }
    MemorySegment set;
    try {
      set = nvml.eventSetCreate();
    } catch (NvmlException e) {
      finish(nvml, MemorySegment.NULL);
      tracker.monitorFailed("XID monitoring cannot start: " + e.getMessage());
      return;
    }
    var byHandle = new HashMap<Long, String>();
    var unwatched = new LinkedHashMap<String, String>();
    namesByUuid.values().forEach(name -> unwatched.put(name, "NVML does not list " + name));
    try {
      int count = nvml.deviceCount();
      for (int i = 0; i < count; i++) {
        register(nvml, set, i, namesByUuid, byHandle, unwatched);
      }
    } catch (NvmlException e) {
      finish(nvml, set);
      tracker.monitorFailed("XID monitoring cannot start: " + e.getMessage());
      return;
    }
    tracker.monitoring(new ArrayList<>(byHandle.values()));
    unwatched.forEach(tracker::unmonitored);
    int timeoutMs = (int) Math.min(Integer.MAX_VALUE, Math.max(1, waitTimeout.toMillis()));
    env.execute(() -> loop(nvml, set, byHandle, timeoutMs));
  }

  private static void register(
      NvmlLibrary nvml,
      MemorySegment set,
      int index,
      Map<String, String> namesByUuid,
      Map<Long, String> byHandle,
      Map<String, String> unwatched) {
    String name = "";
    try {
      var device = nvml.handleByIndex(index);
      var uuid = nvml.uuid(device);
      name = namesByUuid.getOrDefault(uuid, "");
      if (name.isEmpty()) {
        return;
      }
      nvml.registerEvents(device, NvmlEvent.XID_CRITICAL_ERROR, set);
      byHandle.put(device.address(), name);
      unwatched.remove(name);
    } catch (NvmlException e) {
      // One GPU's trouble must not stop monitoring of the others (NVIDIA plugin #231).
      if (!name.isEmpty()) {
        unwatched.put(name, "cannot watch XIDs on " + name + ": " + e.getMessage());
      }
    }
  }

  private void loop(
      NvmlLibrary nvml, MemorySegment set, Map<Long, String> byHandle, int timeoutMs) {
    try {
      while (!stopped) {
        var event = nvml.eventSetWait(set, timeoutMs);
        if (event.isEmpty() || !event.get().isXid()) {
          continue;
        }
        var name = byHandle.get(event.get().device());
        if (name != null) {
          report(name, event.get());
        }
      }
    } catch (NvmlException | RuntimeException e) {
      if (!stopped) {
        // Stopped first: whoever hears "Unknown" from the tracker may already ask whether we
        // stopped.
        stopped = true;
        tracker.monitorFailed("XID monitoring stopped: " + e.getMessage());
      }
    } finally {
      stopped = true;
      finish(nvml, set);
    }
  }

  private void report(String gpu, NvmlEvent event) {
    if (!event.namesInstance()) {
      tracker.xid(gpu, event.eventData(), "reported by NVML");
      return;
    }
    int gi = event.gpuInstanceId();
    var slice = slices.slice(gpu, gi);
    if (slice.isPresent()) {
      tracker.instanceXid(gpu, gi, slice.get(), event.eventData(), "reported by NVML");
    } else {
      tracker.xid(
          gpu,
          event.eventData(),
          "reported by NVML for GPU instance " + gi + ", which no slice of " + gpu + " holds now");
    }
  }

  private static void finish(NvmlLibrary nvml, MemorySegment set) {
    try {
      if (!set.equals(MemorySegment.NULL)) {
        nvml.eventSetFree(set);
      }
      nvml.shutdown();
    } catch (NvmlException e) {
      // Shutting down anyway; nothing else to release.
    } finally {
      nvml.close();
    }
  }

  /** Whether the wait loop has ended (closed, or stopped by an error). */
  public boolean stopped() {
    return stopped;
  }

  /** Stops the loop; it ends within one wait timeout and releases NVML. */
  @Override
  public void close() {
    stopped = true;
  }
}
