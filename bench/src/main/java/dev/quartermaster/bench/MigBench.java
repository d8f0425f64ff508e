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
 * one compute slice and so strands compute whatever the policy), refusals, of them those the
 * fleet's free slices summed would have held (issue 46's "would have fit in total free capacity":
 * the room was there, split over GPUs or in the wrong places) and those one GPU had the room for
 * (fragmentation: the room on one GPU, in the wrong places or pieces), and the CPU per placement
 * decision (the deciding thread's CPU time) and the time to place (wall clock per decision). Beside
 * them, the same stream on one pool of slices without GPUs or positions: what the geometry itself
 * costs. Pure functions over snapshots, no control plane: the placement choice alone.
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
      int fitFleet,
      int fragmented,
      double cpuMicros,
      double wallMicros) {}

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
            "%-26s %12s %8s %10s %14s %14s %16s %16s",
            "policy",
            "utilization",
            "memory",
            "refused",
            "fit fleet-wide",
            "fragmentation",
            "CPU µs/decision",
            "µs to place"));
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
              "%-26s %11.1f%% %7.1f%% %10d %14d %14d %16.1f %16.1f",
              p.name(),
              100 * o.utilization(),
              100 * o.memory(),
              o.refused(),
              o.fitFleet(),
              o.fragmented(),
              o.cpuMicros(),
              o.wallMicros()));
    }
    for (var shared :
        List.of(
            java.util.Map.entry(
                "MPS shares (best fit)", SharedPacking.mps(requests, GPUS, H200, 141)),
            java.util.Map.entry(
                "time-sliced by " + SharedPacking.REPLICAS,
                SharedPacking.timeSliced(requests, GPUS, H200)))) {
      var o = outcome(shared.getValue().tally(), shared.getValue().cpuMicros(), 0);
      report.text(
          String.format(
              Locale.ROOT,
              "%-26s %11.1f%% %7.1f%% %10d %14s %14s %16s %16s",
              shared.getKey(),
              100 * o.utilization(),
              100 * o.memory(),
              o.refused(),
              "-",
              "-",
              shared.getValue().cpuMicros() > 0
                  ? String.format(Locale.ROOT, "%.1f", o.cpuMicros())
                  : "-",
              "-"));
    }
    var pool = pooled(requests);
    report.text(
        String.format(
            Locale.ROOT,
            "%-26s %11.1f%% %7.1f%% %10d %14d %14s %16s %16s",
            "reference: one pool",
            100 * pool.utilization(),
            100 * pool.memory(),
            pool.refused(),
            pool.fitFleet(),
            "-",
            "-",
            "-"));
    report.text(
        "  fit fleet-wide: refused while the fleet's free compute and memory slices, summed, would"
            + " have held it; fragmentation: while one GPU had them, in the wrong places");
    report.text(
        "  MPS: each request as a share of its profile's compute (rounded up to 5 %) and memory,"
            + " judged by DeviceUse; no positions, so no fragmentation, but one fault domain per"
            + " GPU. time-sliced: a replica whatever the profile; its utilization is compute"
            + " promised, nothing isolates it, and past 100 % its clients outnumber the GPU");
    report.line(
        "  measured requests (after " + MigStream.WARM_UP_S / 3600 + " h warm-up)",
        Integer.toString(ours.requests()));
    report.line(
        "  ours against one pool (the fleet's compute and memory slices as one pool: no GPU"
            + " edges, no positions)",
        String.format(
            Locale.ROOT, "%.1f %% of %.1f %%", 100 * ours.utilization(), 100 * pool.utilization()));
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
    var tally = new MigTally();
    long cpu = 0;
    long wall = 0;
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
      long wallBefore = System.nanoTime();
      var choice = policy.rule().choose(fleet, new MigRequest.Profile(r.label()));
      wall += System.nanoTime() - wallBefore;
      cpu += CpuTime.threadNanos() - before;
      switch (choice) {
        case MigChoice.Place p -> {
          int i = Integer.parseInt(p.gpu().substring("gpu-".length()));
          fleet.set(i, fleet.get(i).without(p.placement()).with(p.placement(), "r"));
          leaving.add(new Leaving(r.at() + r.holdS(), i, p.placement()));
          tally.placed(r, r.compute(), p.placement().profile().memorySlices());
        }
        case MigChoice.Refused no ->
            tally.refused(r, fitsFleet(fleet, r), no.refusal() == MigChoice.Refusal.FRAGMENTED);
      }
    }
    return outcome(tally, cpu / 1000.0 / requests.size(), wall / 1000.0 / requests.size());
  }

  /**
   * Whether the fleet's free compute and memory slices, summed over its GPUs, would hold {@code r}:
   * what no instance holds, a static layout's free instances included.
   */
  private static boolean fitsFleet(List<MigOccupancy> fleet, MigStream.Request r) {
    int compute = 0;
    int memory = 0;
    for (var gpu : fleet) {
      compute += gpu.geometry().computeSlices();
      memory += gpu.geometry().memorySlices();
      for (var i : gpu.instances()) {
        if (i.isHeld()) {
          compute -= i.placement().profile().computeSlices();
          memory -= i.placement().profile().memorySlices();
        }
      }
    }
    var profile = H200.profile(r.label()).orElseThrow();
    return compute >= profile.computeSlices() && memory >= profile.memorySlices();
  }

  private static Outcome outcome(MigTally tally, double cpuMicros, double wallMicros) {
    var shares = tally.shares(GPUS, H200.computeSlices(), H200.memorySlices());
    return new Outcome(
        shares[0],
        shares[1],
        tally.requests(),
        tally.refusedCount(),
        tally.fitFleet(),
        tally.fragmented(),
        cpuMicros,
        wallMicros);
  }

  /**
   * The same stream on a fleet with no geometry at all: its compute and memory slices one pool, a
   * request taken whenever the pool has both. A reference for what GPU edges and start positions
   * cost any placement, not a proof: taking every request that fits is not always best (a 7g taken
   * early refuses seven 1g later), so a placement could in principle beat it on some stream.
   */
  private static Outcome pooled(List<MigStream.Request> requests) {
    record Out(double at, int compute, int memory) {}
    var leaving = new PriorityQueue<Out>((a, b) -> Double.compare(a.at(), b.at()));
    int compute = GPUS * H200.computeSlices();
    int memory = GPUS * H200.memorySlices();
    var tally = new MigTally();
    for (var r : requests) {
      while (!leaving.isEmpty() && leaving.peek().at() <= r.at()) {
        var l = leaving.poll();
        compute += l.compute();
        memory += l.memory();
      }
      var profile = H200.profile(r.label()).orElseThrow();
      if (profile.computeSlices() > compute || profile.memorySlices() > memory) {
        tally.refused(r, false, false);
        continue;
      }
      compute -= profile.computeSlices();
      memory -= profile.memorySlices();
      leaving.add(new Out(r.at() + r.holdS(), profile.computeSlices(), profile.memorySlices()));
      tally.placed(r, profile.computeSlices(), profile.memorySlices());
    }
    return outcome(tally, 0, 0);
  }
}
