package dev.quartermaster.agent.devices;

import dev.quartermaster.api.device.mps.MpsShares;
import dev.quartermaster.api.device.timeslice.TimeSlices;
import dev.quartermaster.api.node.GpuSharing;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * What form a GPU not in MIG mode offers itself in — whole, as time-sliced replicas, or as one MPS
 * device — by the operator's wish ({@code spec.sharing}), taken only where nothing held would
 * vanish by it. A held whole GPU stays whole, a held replica stays offered (with those below it),
 * and a GPU with MPS shares held stays MPS, until released: the store refuses a change of mode
 * while a claim holds the GPU, but an allocation made from the slice as it was published may land
 * just after the change, and its claim must find its device here.
 */
final class SharingOffer {
  /** A GPU's form. */
  sealed interface Form {
    String said();
  }

  record Whole() implements Form {
    @Override
    public String said() {
      return "offered whole again";
    }
  }

  record TimeSliced(int replicas) implements Form {
    @Override
    public String said() {
      return "time-sliced by " + replicas;
    }
  }

  record Mps(int clients) implements Form {
    @Override
    public String said() {
      return "shared by MPS, up to " + clients + " clients";
    }
  }

  static final Form WHOLE = new Whole();

  /** What one GPU offers, and why it is not what the operator wished, if it is not. */
  record Offer(Form form, Optional<String> note) {
    /** How many replicas the GPU offers; 0 unless time-sliced. */
    int replicas() {
      return form instanceof TimeSliced(int r) ? r : 0;
    }
  }

  private Map<String, GpuSharing> wish = Map.of();
  private boolean told;

  /** GPU → the form it last offered; absent: whole. */
  private final Map<String, Form> offered = new HashMap<>();

  private final List<String> changes = new ArrayList<>();

  /** What changed form since last asked ({@code gpu-0: time-sliced by 4}), in order. */
  synchronized List<String> drainChanges() {
    var out = List.copyOf(changes);
    changes.clear();
    return out;
  }

  synchronized void wish(Map<String, GpuSharing> next) {
    wish = Map.copyOf(next);
    told = true;
  }

  private Form wanted(String gpu) {
    var w = wish.get(gpu);
    if (w == null) {
      return WHOLE;
    }
    return switch (w.mode()) {
      case TimeSliced -> new TimeSliced(w.replicas());
      case Mps -> new Mps(w.replicas());
    };
  }

  synchronized Offer offer(String gpu, Set<String> held) {
    var wanted = wanted(gpu);
    int highest = -1;
    int shares = 0;
    for (var d : held) {
      var r = TimeSlices.parse(d);
      if (r.isPresent() && r.get().gpu().equals(gpu)) {
        highest = Math.max(highest, r.get().replica());
      }
      shares += MpsShares.parse(d).filter(s -> s.gpu().equals(gpu)).isPresent() ? 1 : 0;
    }
    var before = offered.getOrDefault(gpu, WHOLE);
    int replicasBefore = before instanceof TimeSliced(int r) ? r : 0;
    // Restarted with shares held and not told the wish yet: as many clients as are held, so that
    // no share is handed out past a client limit not known yet.
    var keepMps = before instanceof Mps ? before : new Mps(Math.max(1, shares));
    Form now;
    Optional<String> note = Optional.empty();
    if (!told) {
      // Restarted and not yet told: what the ledger needs.
      now =
          highest >= 0
              ? new TimeSliced(Math.max(replicasBefore, highest + 1))
              : shares > 0 ? keepMps : before;
    } else if (highest >= 0 && !(wanted instanceof TimeSliced(int r) && r > highest)) {
      // A held replica would vanish: kept, with the ones beside it, until released.
      now = new TimeSliced(Math.max(replicasBefore, highest + 1));
      note =
          Optional.of(
              gpu + ": " + wishSaid(wanted) + " waits until replica " + highest + " is released");
    } else if (shares > 0 && !(wanted instanceof Mps)) {
      now = keepMps;
      note =
          Optional.of(gpu + ": " + wishSaid(wanted) + " waits until its MPS shares are released");
    } else if (held.contains(gpu) && !(wanted instanceof Whole)) {
      now = WHOLE;
      note = Optional.of(gpu + ": " + wishSaid(wanted) + " waits until the GPU is released");
    } else {
      now = wanted;
    }
    if (now instanceof Whole) {
      offered.remove(gpu);
    } else {
      offered.put(gpu, now);
    }
    if (!now.equals(before)) {
      changes.add(gpu + ": " + now.said());
    }
    return new Offer(now, note);
  }

  private static String wishSaid(Form wanted) {
    return switch (wanted) {
      case Whole w -> "use whole";
      case TimeSliced(int r) -> "time-slicing by " + r;
      case Mps(int c) -> "MPS";
    };
  }
}
