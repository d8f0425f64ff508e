package dev.quartermaster.bench;

import dev.quartermaster.api.device.mig.LeastFragmenting;
import dev.quartermaster.api.device.mig.MigChoice;
import dev.quartermaster.api.device.mig.MigFirstFit;
import dev.quartermaster.api.device.mig.MigGeometry;
import dev.quartermaster.api.device.mig.MigInstance;
import dev.quartermaster.api.device.mig.MigOccupancy;
import dev.quartermaster.api.device.mig.MigPlacement;
import dev.quartermaster.api.device.mig.MigPlacementRule;
import dev.quartermaster.api.device.mig.MigRequest;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.PriorityQueue;
import java.util.function.IntFunction;

/**
 * Issue 46 (4): a day of MIG requests ({@link MigStream}) on a fleet of H200s, side by side: the
 * least-fragmenting dynamic placement against naive dynamic first fit and two static layouts. Per
 * policy: slice utilization (compute-slice-seconds held over those the fleet offers in the measured
 * day; memory-slice-seconds likewise beside it, as a {@code 1g.35gb} takes two memory slices for
 * one compute slice and so strands compute whatever the policy), refusals, and of them those that
 * fragmentation caused (the room was on one GPU, in the wrong places or pieces), and the CPU per
 * placement decision (the deciding thread's CPU time). Pure functions over snapshots, no control
 * plane: the placement choice alone.
 */
final class MigBench implements Bench.Benchmark {
  private static final long SEED = Long.getLong("qm.bench.migSeed", 46);
  private static final int GPUS = Integer.getInteger("qm.bench.migGpus", 64);
  private static final MigGeometry H200 = MigGeometry.H200_141GB;

  /** One policy: how it chooses, and how each GPU starts (empty, or cut to a static layout). */
  private record Policy(String name, MigPlacementRule rule, IntFunction<MigOccupancy> gpu) {}

  private record Outcome(
      double utilization,
      double memory,
      int requests,
      int refused,
      int fragmented,
      double cpuMicros) {}

  private record Leaving(double at, int gpu, MigPlacement placement) {}

  @Override
  public void run(Path dir, double raw, Report report) {
    var requests = MigStream.draw(SEED, GPUS);
    report.heading(
        "mig: a day of "
            + requests.size()
            + " requests on "
            + GPUS
            + " H200-141GB (seed "
            + SEED
            + ", demand "
            + MigStream.LOAD
            + "x the fleet's compute on average)");
    var policies =
        List.of(
            new Policy("ours (least fragmenting)", LeastFragmenting.RULE, MigBench::empty),
            new Policy("naive dynamic first fit", MigFirstFit.RULE, MigBench::empty),
            new Policy(
                StaticMigLayout.ALL_1G.name(),
                StaticMigLayout.ALL_1G,
                i -> StaticMigLayout.ALL_1G.cut("gpu-" + i, H200)),
            new Policy(
                StaticMigLayout.ALL_BALANCED.name(),
                StaticMigLayout.ALL_BALANCED,
                i -> StaticMigLayout.ALL_BALANCED.cut("gpu-" + i, H200)));
    report.text(
        String.format(
            Locale.ROOT,
            "%-26s %12s %8s %10s %14s %16s",
            "policy",
            "utilization",
            "memory",
            "refused",
            "fragmentation",
            "CPU µs/decision"));
    Outcome ours = null;
    boolean fewerThanStatic = true;
    for (var p : policies) {
      replay(p, requests); // uncounted: the JIT's first pass
      var o = replay(p, requests);
      ours = ours == null ? o : ours;
      if (p.rule() instanceof StaticMigLayout) {
        fewerThanStatic &= ours.refused() < o.refused();
      }
      report.text(
          String.format(
              Locale.ROOT,
              "%-26s %11.1f%% %7.1f%% %10d %14d %16.1f",
              p.name(),
              100 * o.utilization(),
              100 * o.memory(),
              o.refused(),
              o.fragmented(),
              o.cpuMicros()));
    }
    report.line(
        "  measured requests (after " + MigStream.WARM_UP_S / 3600 + " h warm-up)",
        Integer.toString(ours.requests()));
    report.line(
        "  goal: ours ≥ 90 % utilization and fewer refusals than every static layout",
        (ours.utilization() >= 0.9 && fewerThanStatic ? "met" : "NOT met")
            + String.format(Locale.ROOT, " (%.1f %%)", 100 * ours.utilization()));
  }

  private static MigOccupancy empty(int i) {
    return MigOccupancy.empty("gpu-" + i, H200);
  }

  private static Outcome replay(Policy policy, List<MigStream.Request> requests) {
    var fleet = new ArrayList<MigOccupancy>();
    for (int i = 0; i < GPUS; i++) {
      fleet.add(policy.gpu().apply(i));
    }
    boolean keeps = policy.rule() instanceof StaticMigLayout;
    var leaving = new PriorityQueue<Leaving>((a, b) -> Double.compare(a.at(), b.at()));
    double from = MigStream.WARM_UP_S;
    double to = from + MigStream.DAY_S;
    double used = 0;
    double memory = 0;
    int measured = 0;
    int refused = 0;
    int fragmented = 0;
    long cpu = 0;
    for (var r : requests) {
      while (!leaving.isEmpty() && leaving.peek().at() <= r.at()) {
        var l = leaving.poll();
        var gpu = fleet.get(l.gpu()).without(l.placement());
        if (keeps) { // a static layout's instance stays, free again
          var instances = new ArrayList<>(gpu.instances());
          instances.add(MigInstance.free(l.placement()));
          gpu = new MigOccupancy(gpu.gpu(), gpu.geometry(), instances);
        }
        fleet.set(l.gpu(), gpu);
      }
      long before = CpuTime.threadNanos();
      var choice = policy.rule().choose(fleet, new MigRequest.Profile(r.label()));
      cpu += CpuTime.threadNanos() - before;
      boolean counted = r.at() >= from;
      measured += counted ? 1 : 0;
      switch (choice) {
        case MigChoice.Place p -> {
          int i = Integer.parseInt(p.gpu().substring("gpu-".length()));
          fleet.set(i, fleet.get(i).without(p.placement()).with(p.placement(), "r"));
          double end = r.at() + r.holdS();
          leaving.add(new Leaving(end, i, p.placement()));
          double held = Math.max(0, Math.min(end, to) - Math.max(r.at(), from));
          used += r.compute() * held;
          memory += p.placement().profile().memorySlices() * held;
        }
        case MigChoice.Refused no -> {
          refused += counted ? 1 : 0;
          fragmented += counted && no.refusal() == MigChoice.Refusal.FRAGMENTED ? 1 : 0;
        }
      }
    }
    double offered = (double) GPUS * H200.computeSlices() * MigStream.DAY_S;
    return new Outcome(
        used / offered,
        memory / offered * H200.computeSlices() / H200.memorySlices(),
        measured,
        refused,
        fragmented,
        cpu / 1000.0 / requests.size());
  }
}
