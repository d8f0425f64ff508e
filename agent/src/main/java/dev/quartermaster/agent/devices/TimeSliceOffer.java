package dev.quartermaster.agent.devices;

import dev.quartermaster.api.device.timeslice.TimeSlices;
import dev.quartermaster.api.node.GpuSharing;
import dev.quartermaster.api.node.SharingMode;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Whether a GPU not in MIG mode offers itself or replicas, and how many: the operator's wish
 * ({@code spec.sharing}), taken only where nothing held would vanish by it. A held whole GPU stays
 * whole, and a held replica stays offered (with those below it), until released: the store refuses
 * a change of mode while a claim holds the GPU, but an allocation made from the slice as it was
 * published may land just after the change, and its claim must find its device here.
 */
final class TimeSliceOffer {
  /** What one GPU offers: {@code replicas} of them, or itself whole when 0. */
  record Replicas(int replicas, Optional<String> note) {}

  private Map<String, GpuSharing> wish = Map.of();
  private boolean told;

  /** GPU → how many replicas it last offered; absent: offered whole. */
  private final Map<String, Integer> offered = new HashMap<>();

  private final java.util.List<String> changes = new java.util.ArrayList<>();

  /** What changed form since last asked ({@code gpu-0: time-sliced by 4}), in order. */
  synchronized java.util.List<String> drainChanges() {
    var out = java.util.List.copyOf(changes);
    changes.clear();
    return out;
  }

  synchronized void wish(Map<String, GpuSharing> next) {
    wish = Map.copyOf(next);
    told = true;
  }

  synchronized Replicas offer(String gpu, Set<String> held) {
    var wanted =
        Optional.ofNullable(wish.get(gpu))
            .filter(w -> w.mode() == SharingMode.TimeSliced)
            .map(GpuSharing::replicas)
            .orElse(0);
    int highest = -1;
    for (var d : held) {
      var r = TimeSlices.parse(d);
      if (r.isPresent() && r.get().gpu().equals(gpu)) {
        highest = Math.max(highest, r.get().replica());
      }
    }
    int before = offered.getOrDefault(gpu, 0);
    int now;
    Optional<String> note = Optional.empty();
    if (!told) {
      now = Math.max(before, highest + 1); // restarted and not yet told: what the ledger needs
    } else if (highest >= 0 && wanted <= highest) {
      // A held replica would vanish: kept, with the ones beside it, until released.
      now = Math.max(before, highest + 1);
      note =
          Optional.of(
              gpu
                  + ": "
                  + (wanted == 0 ? "use whole" : "time-slicing by " + wanted)
                  + " waits until replica "
                  + highest
                  + " is released");
    } else if (held.contains(gpu) && wanted > 0) {
      now = 0;
      note = Optional.of(gpu + ": time-slicing by " + wanted + " waits until the GPU is released");
    } else {
      now = wanted;
    }
    if (now > 0) {
      offered.put(gpu, now);
    } else {
      offered.remove(gpu);
    }
    if (now != before) {
      changes.add(gpu + (now > 0 ? ": time-sliced by " + now : ": offered whole again"));
    }
    return new Replicas(now, note);
  }
}
