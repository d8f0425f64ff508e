package dev.quartermaster.bench;

import dev.quartermaster.api.device.Device;
import dev.quartermaster.api.device.DeviceSliceSpec;
import dev.quartermaster.api.device.mig.MigGeometry;
import dev.quartermaster.api.device.mps.MpsShare;
import dev.quartermaster.api.device.mps.MpsShares;
import dev.quartermaster.api.device.use.DeviceUse;
import dev.quartermaster.api.device.use.Holders;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;

/**
 * The MIG bench's request stream ({@link MigStream}) on the same fleet shared by MPS and by
 * time-slicing instead: each profile asked as what it stands for. An MPS share of the profile's
 * compute (its sevenths, rounded up to 5 %) and memory (its GiB), placed best fit (the GPU with the
 * least compute left that holds it) and judged by {@link DeviceUse} as the allocator judges it; a
 * time-sliced replica (one of {@link #REPLICAS} per GPU) whatever the profile, which isolates
 * nothing: its "utilization" is the compute its clients were promised, past 100 % where they
 * outnumber the GPU.
 */
final class SharedPacking {
  static final int REPLICAS = 4;

  private SharedPacking() {}

  /** What one replay held and refused, and its CPU per decision. */
  record Result(MigTally tally, double cpuMicros) {}

  private record Leaving(double at, int gpu, String device) {}

  /** The MPS share standing for {@code r}: its compute in percent (5 % steps) and GiB. */
  static int[] share(MigStream.Request r, MigGeometry geometry) {
    var profile = geometry.profile(r.label()).orElseThrow();
    int percent =
        (int) Math.ceil(100.0 * profile.computeSlices() / geometry.computeSlices() / 5) * 5;
    int gib = Integer.parseInt(r.label().substring(r.label().indexOf('.') + 1).replace("gb", ""));
    return new int[] {Math.min(100, percent), gib};
  }

  /**
   * @param memoryGiB each GPU's memory, which the shares' caps sum to at most
   */
  static Result mps(
      List<MigStream.Request> requests, int gpus, MigGeometry geometry, long memoryGiB) {
    var devices = new ArrayList<Device>();
    for (int i = 0; i < gpus; i++) {
      var whole =
          new Device(
              "gpu-" + i,
              "gpu",
              Map.of("memory", Long.toString(memoryGiB * MpsShares.GIB)),
              Device.Health.Healthy,
              "");
      devices.add(MpsShares.template(whole, MpsShares.MAX_CLIENTS));
    }
    var use = DeviceUse.of(new DeviceSliceSpec("bench", devices));
    var held = new ArrayList<Map<String, String>>();
    var compute = new int[gpus];
    for (int i = 0; i < gpus; i++) {
      held.add(new HashMap<>());
    }
    var leaving = new PriorityQueue<Leaving>((a, b) -> Double.compare(a.at(), b.at()));
    var tally = new MigTally();
    long cpu = 0;
    for (var r : requests) {
      while (!leaving.isEmpty() && leaving.peek().at() <= r.at()) {
        var l = leaving.poll();
        held.get(l.gpu()).remove(l.device());
        compute[l.gpu()] -= MpsShares.parse(l.device()).orElseThrow().computePercent();
      }
      var size = share(r, geometry);
      long before = CpuTime.threadNanos();
      int best = -1;
      String name = "";
      for (int i = 0; i < gpus; i++) {
        if (best >= 0 && compute[i] <= compute[best]) {
          continue; // best fit: the fullest GPU that holds it
        }
        var mine = held.get(i);
        var share = new MpsShare("gpu-" + i, size[0], size[1], 0);
        for (int k = 1; mine.containsKey(share.name()); k++) {
          share = new MpsShare("gpu-" + i, size[0], size[1], k);
        }
        if (use.isFree(share.name(), Holders.of(mine))) {
          best = i;
          name = share.name();
        }
      }
      cpu += CpuTime.threadNanos() - before;
      var profile = geometry.profile(r.label()).orElseThrow();
      if (best < 0) {
        tally.refused(r, false, false);
        continue;
      }
      held.get(best).put(name, "r");
      compute[best] += size[0];
      leaving.add(new Leaving(r.at() + r.holdS(), best, name));
      tally.placed(r, profile.computeSlices(), profile.memorySlices());
    }
    return new Result(tally, cpu / 1000.0 / requests.size());
  }

  static Result timeSliced(List<MigStream.Request> requests, int gpus, MigGeometry geometry) {
    var clients = new int[gpus];
    var leaving = new PriorityQueue<Leaving>((a, b) -> Double.compare(a.at(), b.at()));
    var tally = new MigTally();
    for (var r : requests) {
      while (!leaving.isEmpty() && leaving.peek().at() <= r.at()) {
        clients[leaving.poll().gpu()]--;
      }
      int best = -1;
      for (int i = 0; i < gpus; i++) {
        if (clients[i] < REPLICAS && (best < 0 || clients[i] < clients[best])) {
          best = i; // the least crowded GPU
        }
      }
      var profile = geometry.profile(r.label()).orElseThrow();
      if (best < 0) {
        tally.refused(r, false, false);
        continue;
      }
      clients[best]++;
      leaving.add(new Leaving(r.at() + r.holdS(), best, ""));
      tally.placed(r, profile.computeSlices(), profile.memorySlices());
    }
    return new Result(tally, 0);
  }
}
