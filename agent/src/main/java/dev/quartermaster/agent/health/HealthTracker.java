package dev.quartermaster.agent.health;

import dev.quartermaster.core.env.Env;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * Per-device health as a state machine over faults and {@link Env} time; the sources that feed it
 * (NVML XID events, a simulated root's health files) are separate I/O edges.
 *
 * <pre>
 *   Unknown("not started") --monitoring(devices)--> Healthy
 *   Healthy / Unhealthy --fault--> Unhealthy(reason, since)  (another fault restarts the clean period)
 *   Unhealthy --cleanPeriod without a fault--> the baseline: Healthy while monitored, else Unknown
 *   any --monitorFailed(reason)--> Unknown(reason)           (fail closed: no new allocations)
 *   any --unmonitored(device, reason)--> Unknown(reason)     (this one device cannot be watched)
 * </pre>
 *
 * Thread-safe: sources may call from their own threads. Listeners are told after each change,
 * outside the lock. Recovery is driven by {@link Env#schedule}, so a simulation sees it in virtual
 * time.
 */
public final class HealthTracker {
  private static final long NEVER = Long.MIN_VALUE;

  private final Env env;
  private final HealthPolicy policy;
  private final HealthListener listener;
  private final Map<String, State> devices = new TreeMap<>();

  /** Why monitoring is not running; empty while it is. */
  private String monitorDown = "health monitoring has not started";

  /** {@code unwatched}: why this device cannot be monitored, empty when it can. */
  private record State(DeviceHealth health, long lastFaultNanos, String unwatched) {}

  private record Change(String device, DeviceHealth health) {}

  public HealthTracker(Env env, HealthPolicy policy, HealthListener listener) {
    this.env = Objects.requireNonNull(env, "env");
    this.policy = Objects.requireNonNull(policy, "policy");
    this.listener = Objects.requireNonNull(listener, "listener");
  }

  /** Monitoring of {@code names} runs: each is healthy unless a recent fault says otherwise. */
  public void monitoring(Collection<String> names) {
    var changes = new ArrayList<Change>();
    synchronized (this) {
      monitorDown = "";
      for (var name : names) {
        var s = devices.getOrDefault(name, new State(new DeviceHealth.Unknown(""), NEVER, ""));
        var health =
            s.health() instanceof DeviceHealth.Unhealthy ? s.health() : new DeviceHealth.Healthy();
        set(name, new State(health, s.lastFaultNanos(), ""), changes);
      }
    }
    tell(changes);
  }

  /** Monitoring could not start or broke down: every device is Unknown with {@code reason}. */
  public void monitorFailed(String reason) {
    var changes = new ArrayList<Change>();
    synchronized (this) {
      monitorDown = reason.isBlank() ? "health monitoring failed" : reason;
      for (var e : List.copyOf(devices.entrySet())) {
        set(
            e.getKey(),
            new State(
                new DeviceHealth.Unknown(monitorDown),
                e.getValue().lastFaultNanos(),
                e.getValue().unwatched()),
            changes);
      }
    }
    tell(changes);
  }

  /** This one device cannot be watched (e.g. its events are not supported): Unknown with why. */
  public void unmonitored(String device, String reason) {
    var changes = new ArrayList<Change>();
    synchronized (this) {
      var last = devices.containsKey(device) ? devices.get(device).lastFaultNanos() : NEVER;
      set(device, new State(new DeviceHealth.Unknown(reason), last, reason), changes);
    }
    tell(changes);
  }

  /** An XID on {@code device}; ignored when the policy says it is an application's fault. */
  public void xid(String device, long xid, String detail) {
    if (policy.ignoredXids().contains(xid)) {
      return;
    }
    fault(device, "XID " + xid + (detail.isBlank() ? "" : ": " + detail.strip()));
  }

  /**
   * An XID that named GPU instance {@code giId} of {@code parent}, published as slice {@code
   * slice}: that slice alone is unhealthy (see {@link DeviceHealth#ofSlice}); ignored as {@link
   * #xid} ignores.
   */
  public void instanceXid(String parent, int giId, String slice, long xid, String detail) {
    if (policy.ignoredXids().contains(xid)) {
      return;
    }
    fault(
        slice,
        "XID "
            + xid
            + (detail.isBlank() ? "" : ": " + detail.strip())
            + "; it named GPU instance "
            + giId
            + " of "
            + parent
            + ", so only this slice is affected");
  }

  /**
   * A fault on {@code device}: unhealthy now, back to its baseline after a clean period without
   * faults.
   */
  public void fault(String device, String reason) {
    var changes = new ArrayList<Change>();
    synchronized (this) {
      var previous = devices.get(device);
      // Keep "since" while the device stays unhealthy: it says how long it has been down.
      var health =
          previous != null && previous.health() instanceof DeviceHealth.Unhealthy u
              ? new DeviceHealth.Unhealthy(reason, u.since())
              : new DeviceHealth.Unhealthy(reason, env.now());
      set(
          device,
          new State(health, env.nanoTime(), previous == null ? "" : previous.unwatched()),
          changes);
    }
    env.schedule(policy.cleanPeriod(), () -> recheck(device));
    tell(changes);
  }

  /** The health of {@code device} now; a device no source has named is Unknown. */
  public synchronized DeviceHealth health(String device) {
    var s = devices.get(device);
    return s == null
        ? new DeviceHealth.Unknown(
            monitorDown.isEmpty() ? "no health source reports " + device : monitorDown)
        : s.health();
  }

  /**
   * The health of {@code device} if a source has named it (monitored, or a fault on it), else
   * empty: a slice has health of its own only once an XID named its instance.
   */
  public synchronized java.util.Optional<DeviceHealth> reported(String device) {
    return java.util.Optional.ofNullable(devices.get(device)).map(State::health);
  }

  /** Every device's health now, by name. */
  public synchronized Map<String, DeviceHealth> snapshot() {
    var out = new TreeMap<String, DeviceHealth>();
    devices.forEach((name, s) -> out.put(name, s.health()));
    return out;
  }

  private void recheck(String device) {
    var changes = new ArrayList<Change>();
    synchronized (this) {
      var s = devices.get(device);
      // Only the last fault's recheck can find the period clean; earlier ones see a later fault.
      if (s != null
          && s.health() instanceof DeviceHealth.Unhealthy
          && env.nanoTime() - s.lastFaultNanos() >= policy.cleanPeriod().toNanos()) {
        set(device, new State(baseline(s), s.lastFaultNanos(), s.unwatched()), changes);
      }
    }
    tell(changes);
  }

  private DeviceHealth baseline(State s) {
    if (!monitorDown.isEmpty()) {
      return new DeviceHealth.Unknown(monitorDown);
    }
    return s.unwatched().isEmpty()
        ? new DeviceHealth.Healthy()
        : new DeviceHealth.Unknown(s.unwatched());
  }

  private void set(String device, State next, List<Change> changes) {
    var previous = devices.put(device, next);
    if (previous == null || !previous.health().equals(next.health())) {
      changes.add(new Change(device, next.health()));
    }
  }

  private void tell(List<Change> changes) {
    for (var c : changes) {
      listener.changed(c.device(), c.health());
    }
  }
}
