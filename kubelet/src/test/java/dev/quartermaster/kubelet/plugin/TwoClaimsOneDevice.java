package dev.quartermaster.kubelet.plugin;

import static dev.quartermaster.kubelet.plugin.PluginFixture.A;
import static dev.quartermaster.kubelet.plugin.PluginFixture.B;

import dev.quartermaster.kubelet.claims.KubeClaim;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;

/**
 * Claims A and B allocated the same device, driven through a plugin as the kubelet would: the given
 * calls in the given order, and after every unprepare a retry of each prepare that was refused for
 * a held device (the kubelet keeps calling). Every answer is checked against what a correct plugin
 * must say, and after every call at most one of the two may hold the device: in the kubelet's view
 * (prepared and not unprepared since) and on the node (a CDI spec on disk).
 */
final class TwoClaimsOneDevice {

  enum Op {
    PREPARE_A,
    PREPARE_B,
    UNPREPARE_A,
    UNPREPARE_B;

    KubeClaim claim() {
      return this == PREPARE_A || this == UNPREPARE_A ? A : B;
    }

    boolean prepare() {
      return this == PREPARE_A || this == PREPARE_B;
    }
  }

  private TwoClaimsOneDevice() {}

  /** All 24 orders of the four calls. */
  static List<List<Op>> everyOrder() {
    var out = new ArrayList<List<Op>>();
    permute(new ArrayList<>(), new LinkedHashSet<>(List.of(Op.values())), out);
    return out;
  }

  private static void permute(List<Op> prefix, Set<Op> left, List<List<Op>> out) {
    if (left.isEmpty()) {
      out.add(List.copyOf(prefix));
      return;
    }
    for (var op : List.copyOf(left)) {
      prefix.add(op);
      left.remove(op);
      permute(prefix, left, out);
      left.add(op);
      prefix.removeLast();
    }
  }

  /** Plays {@code ops}; returns every violation found (none for a correct plugin). */
  static List<String> run(KubeletCalls kubelet, Supplier<Set<String>> specsOnDisk, List<Op> ops) {
    var run = new Run(kubelet, specsOnDisk);
    for (var op : ops) {
      run.play(op);
    }
    return run.violations;
  }

  private static final class Run {
    private final KubeletCalls kubelet;
    private final Supplier<Set<String>> specsOnDisk;
    private final List<String> violations = new ArrayList<>();
    private final List<String> history = new ArrayList<>();

    /** What a correct plugin's ledger says: the holder of the device, and who was unprepared. */
    private Optional<KubeClaim> holder = Optional.empty();

    private final Set<KubeClaim> unprepared = new LinkedHashSet<>();

    /** Prepares refused for a held device that the kubelet will call again. */
    private final Set<KubeClaim> retrying = new LinkedHashSet<>();

    /** Claims whose last prepare the kubelet was told succeeded, not unprepared since. */
    private final Set<KubeClaim> kubeletThinksPrepared = new LinkedHashSet<>();

    Run(KubeletCalls kubelet, Supplier<Set<String>> specsOnDisk) {
      this.kubelet = kubelet;
      this.specsOnDisk = specsOnDisk;
    }

    void play(Op op) {
      var claim = op.claim();
      if (op.prepare()) {
        prepare(claim, "prepare " + name(claim));
        return;
      }
      var error = kubelet.unprepare(claim);
      history.add("unprepare " + name(claim));
      if (!error.isEmpty()) {
        violations.add(at() + ": unprepare failed: " + error);
      }
      unprepared.add(claim);
      retrying.remove(claim);
      kubeletThinksPrepared.remove(claim);
      if (holder.equals(Optional.of(claim))) {
        holder = Optional.empty();
      }
      checkOneHolder();
      for (var waiting : List.copyOf(retrying)) {
        prepare(waiting, "retried prepare " + name(waiting));
      }
    }

    private void prepare(KubeClaim claim, String what) {
      var answer = kubelet.prepare(claim);
      history.add(what);
      var other = claim.equals(A) ? B : A;
      if (unprepared.contains(claim)) {
        // A prepare after this claim's unprepare is a late retry: the tombstone refuses it.
        if (answer.prepared() || !answer.error().contains("unprepared")) {
          violations.add(at() + ": a late prepare after unprepare must be refused, got " + answer);
        }
      } else if (holder.equals(Optional.of(other))) {
        if (answer.prepared()) {
          violations.add(at() + ": prepared while " + name(other) + " holds the device");
        } else if (!answer.error().contains(other.uid())) {
          violations.add(at() + ": the refusal does not name the holder's uid: " + answer.error());
        }
        retrying.add(claim);
      } else {
        if (!answer.prepared()) {
          violations.add(at() + ": the device is free, yet refused: " + answer.error());
        }
        holder = Optional.of(claim);
        retrying.remove(claim);
      }
      if (answer.prepared()) {
        kubeletThinksPrepared.add(claim);
      }
      checkOneHolder();
    }

    private void checkOneHolder() {
      if (kubeletThinksPrepared.size() > 1) {
        violations.add("both A and B prepared at once, in the kubelet's view, " + at());
      }
      var specs = specsOnDisk.get();
      if (specs.contains(A.uid()) && specs.contains(B.uid())) {
        violations.add("both A and B prepared at once, on disk (CDI specs), " + at());
      }
    }

    private String at() {
      return "after " + String.join(", ", history);
    }

    private static String name(KubeClaim claim) {
      return claim.equals(A) ? "A" : "B";
    }
  }
}
