package dev.quartermaster.agent.mig;

import dev.quartermaster.api.device.mig.MigGeometry;
import dev.quartermaster.api.device.mig.MigInstance;
import dev.quartermaster.api.device.mig.MigOccupancy;
import dev.quartermaster.api.device.mig.MigPlacement;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;

/**
 * A simulated node's MIG state, as the driver keeps it: which GPUs are in MIG mode and the
 * instances that exist, with the rules the driver applies (no overlap, ids from 1, a fresh UUID per
 * creation). Immutable; each change returns the next table. Its text form is what a simulated
 * device root keeps on disk, so it survives {@code kill -9} of the agent and can be counted.
 *
 * @param node whose GPUs these are (part of each UUID)
 * @param enabled the indexes of the GPUs in MIG mode
 * @param created instances ever created (so a UUID is never given twice)
 */
public record MigTable(
    String node, Set<Integer> enabled, List<LiveInstance> instances, long created) {
  public MigTable {
    enabled =
        java.util.Collections.unmodifiableSortedSet(
            new TreeSet<>(enabled)); // in order: the text form is written from it
    instances = List.copyOf(instances);
  }

  public static MigTable empty(String node) {
    return new MigTable(node, Set.of(), List.of(), 0);
  }

  public List<LiveInstance> on(int gpu) {
    return instances.stream().filter(i -> i.gpu() == gpu).toList();
  }

  /** MIG mode on or off; refused while an instance exists (destroy them first). */
  public MigTable withMode(int gpu, boolean on) throws MigRefusedException {
    if (!on && !on(gpu).isEmpty()) {
      throw new MigRefusedException(
          MigRefusedException.Refusal.InUse,
          "in use: gpu " + gpu + " still has " + on(gpu).size() + " MIG instances");
    }
    var next = new TreeSet<>(enabled);
    if (on) {
      next.add(gpu);
    } else {
      next.remove(gpu);
    }
    return new MigTable(node, next, instances, created);
  }

  /** A new instance at {@code placement}, as the driver would number it. */
  public LiveInstance next(MigGpu gpu, MigPlacement placement) throws MigRefusedException {
    if (!enabled.contains(gpu.index())) {
      throw new MigRefusedException(
          MigRefusedException.Refusal.NotSupported, "MIG mode is off on gpu " + gpu.index());
    }
    var occupancy =
        new MigOccupancy(
            gpu.name(),
            gpu.geometry(),
            on(gpu.index()).stream().map(i -> MigInstance.free(i.placement())).toList());
    if (!occupancy.canCreate(placement)) {
      throw new MigRefusedException(
          MigRefusedException.Refusal.InsufficientResources,
          "insufficient resources: "
              + placement
              + " overlaps "
              + on(gpu.index()).stream()
                  .filter(i -> i.placement().overlaps(placement))
                  .map(i -> i.placement().toString())
                  .toList()
              + " on gpu "
              + gpu.index());
    }
    int gi = 1;
    var taken = on(gpu.index()).stream().map(LiveInstance::giId).toList();
    while (taken.contains(gi)) {
      gi++;
    }
    var uuid =
        "MIG-"
            + UUID.nameUUIDFromBytes(
                (node + "/" + gpu.index() + "/" + gi + "/" + created)
                    .getBytes(StandardCharsets.UTF_8));
    return new LiveInstance(
        gpu.index(),
        placement,
        gi,
        0,
        uuid,
        MigCapabilities.giMinor(gpu.index(), gi),
        MigCapabilities.ciMinor(gpu.index(), gi, 0));
  }

  public MigTable with(LiveInstance instance) {
    var next = new ArrayList<>(instances);
    next.add(instance);
    return new MigTable(node, enabled, next, created + 1);
  }

  public MigTable without(LiveInstance instance) {
    var next = new ArrayList<>(instances);
    next.removeIf(i -> i.gpu() == instance.gpu() && i.giId() == instance.giId());
    return new MigTable(node, enabled, next, created);
  }

  /** The text form: one line per fact, {@code grep -c ^instance} counts the instances. */
  public String render() {
    var sb = new StringBuilder();
    sb.append("node ").append(node).append('\n');
    sb.append("created ").append(created).append('\n');
    enabled.forEach(g -> sb.append("mig-mode ").append(g).append('\n'));
    for (var i : instances) {
      var p = i.placement().profile();
      sb.append("instance ")
          .append(
              String.join(
                  " ",
                  List.of(
                      Integer.toString(i.gpu()),
                      p.label(),
                      Integer.toString(p.computeSlices()),
                      Integer.toString(p.memorySlices()),
                      Integer.toString(i.placement().start()),
                      Integer.toString(i.giId()),
                      Integer.toString(i.ciId()),
                      i.uuid(),
                      Integer.toString(i.giCapMinor()),
                      Integer.toString(i.ciCapMinor()))))
          .append('\n');
    }
    return sb.toString();
  }

  /**
   * Reads {@link #render()}'s text; an instance's placement is found in {@code geometry} by its
   * capacity and start (not its label).
   */
  public static MigTable parse(String text, java.util.function.IntFunction<MigGeometry> geometry) {
    String node = "";
    long created = 0;
    var enabled = new TreeSet<Integer>();
    var instances = new ArrayList<LiveInstance>();
    for (var line : text.split("\n")) {
      var f = line.trim().split(" ");
      switch (f[0]) {
        case "node" -> node = f.length > 1 ? f[1] : "";
        case "created" -> created = Long.parseLong(f[1]);
        case "mig-mode" -> enabled.add(Integer.parseInt(f[1]));
        case "instance" -> {
          int gpu = Integer.parseInt(f[1]);
          int compute = Integer.parseInt(f[3]);
          int memory = Integer.parseInt(f[4]);
          int start = Integer.parseInt(f[5]);
          var profile =
              geometry.apply(gpu).profiles().stream()
                  .filter(p -> p.computeSlices() == compute && p.memorySlices() == memory)
                  .findFirst()
                  .orElseThrow(() -> new IllegalArgumentException("unknown MIG shape: " + line));
          instances.add(
              new LiveInstance(
                  gpu,
                  new MigPlacement(profile, start),
                  Integer.parseInt(f[6]),
                  Integer.parseInt(f[7]),
                  f[8],
                  Integer.parseInt(f[9]),
                  Integer.parseInt(f[10])));
        }
        default -> {} // blank lines, and facts a later version added
      }
    }
    return new MigTable(node, enabled, instances, created);
  }
}
