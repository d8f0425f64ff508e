package dev.quartermaster.control.lifecycle;

import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * When the control plane last saw each node's reported heartbeat change, on its own monotonic
 * clock. The reported value is only compared for change, never for its time: an agent's clock may
 * be wrong, or its status hand-written. A node first seen (or seen again after a controller
 * restart) gets a full grace period from that moment, as Kubernetes' node lifecycle controller
 * does.
 */
final class ObservedHeartbeats {
  private record Seen(Optional<Instant> reported, long atNanos) {}

  private final Map<String, Seen> seen = new ConcurrentHashMap<>();

  /**
   * How long since {@code node}'s heartbeat was last seen to change, given it now reads {@code
   * reported}.
   */
  Duration silence(String node, Optional<Instant> reported, long nowNanos) {
    var s =
        seen.compute(
            node,
            (k, old) ->
                old != null && old.reported().equals(reported)
                    ? old
                    : new Seen(reported, nowNanos));
    return Duration.ofNanos(nowNanos - s.atNanos());
  }

  void forget(String node) {
    seen.remove(node);
  }
}
