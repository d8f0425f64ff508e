package dev.quartermaster.api.device.mig;

import dev.quartermaster.api.device.Device;
import dev.quartermaster.api.device.DeviceSliceSpec;
import dev.quartermaster.api.device.mps.MpsShares;
import dev.quartermaster.api.device.timeslice.TimeSlices;
import dev.quartermaster.api.node.MigMode;
import dev.quartermaster.api.node.NodeSpec;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The GPUs of one node that are wished or published in MIG mode, each with what stands on it: the
 * one reading of a node's MIG state that {@code qm describe node}, {@code qm get nodes}, the
 * metrics and the dashboard show, built from the node's spec, its slice (the devices of class
 * {@link MigGeometry#DEVICE_CLASS} with their {@code parent}, {@code profile}, {@code start}
 * attributes) and who holds which device.
 */
public record NodeMigGpus(List<MigGpu> gpus) {
  /** No GPU of the node is, or is wished, in MIG mode. */
  public static final NodeMigGpus NONE = new NodeMigGpus(List.of());

  public NodeMigGpus {
    gpus = List.copyOf(gpus);
  }

  /**
   * @param holders device name → its holder as an operator reads it ({@code claim/a}); a device
   *     absent is free
   */
  public static NodeMigGpus of(NodeSpec spec, DeviceSliceSpec slice, Map<String, String> holders) {
    var slices = new TreeMap<String, List<Device>>();
    for (var d : slice.devices()) {
      if (d.deviceClass().equals(MigGeometry.DEVICE_CLASS)) {
        gpuOf(d).ifPresent(g -> slices.computeIfAbsent(g, k -> new ArrayList<>()).add(d));
      }
    }
    var names = new TreeSet<String>(spec.mig().keySet());
    names.addAll(slices.keySet());
    slice.sharedCounters().stream()
        .filter(c -> c.counters().containsKey(MigGeometry.COMPUTE))
        .forEach(c -> names.add(c.name()));
    var out = new ArrayList<MigGpu>();
    for (var gpu : names) {
      var published = slices.getOrDefault(gpu, List.of());
      boolean inMig =
          !published.isEmpty()
              || slice.sharedCounters().stream().anyMatch(c -> c.name().equals(gpu));
      out.add(gpu(gpu, Optional.ofNullable(spec.mig().get(gpu)), inMig, published, slice, holders));
    }
    return new NodeMigGpus(out);
  }

  /**
   * The GPU a device is or is part of: a slice's or a time-sliced replica's {@code parent}, a whole
   * GPU itself.
   */
  public static Optional<String> gpuOf(Device device) {
    if (device.deviceClass().equals(MigGeometry.DEVICE_CLASS)
        || device.deviceClass().equals(TimeSlices.DEVICE_CLASS)) {
      return Optional.ofNullable(device.attributes().get("parent")).filter(p -> !p.isEmpty());
    }
    return device.deviceClass().equals(WHOLE_GPU_CLASS)
        ? Optional.of(device.name())
        : Optional.empty();
  }

  /** The GPUs a node's slice shows, whole, sliced or shared, by name. */
  public static java.util.SortedSet<String> gpus(DeviceSliceSpec slice) {
    var out = new TreeSet<String>();
    slice.devices().forEach(d -> gpuOf(d).ifPresent(out::add));
    slice.devices().stream()
        .filter(MpsShares::isTemplate)
        .forEach(d -> MpsShares.gpuOfTemplate(d.name()).ifPresent(out::add));
    return out;
  }

  /** The device class of a GPU used whole. */
  public static final String WHOLE_GPU_CLASS = "gpu";

  public boolean isEmpty() {
    return gpus.isEmpty();
  }

  /**
   * {@code qm get nodes}' MIG FREE: compute slices (sevenths of a GPU) a claim could still get over
   * the GPUs in MIG mode, of all they have, e.g. {@code 11/14}; {@code -} for a node with none.
   */
  public String freeText() {
    var sliced = gpus.stream().filter(g -> g.occupancy().isPresent()).toList();
    if (sliced.isEmpty()) {
      return gpus.isEmpty() ? "-" : "0/0";
    }
    return sliced.stream().mapToInt(MigGpu::freeCompute).sum()
        + "/"
        + sliced.stream().mapToInt(MigGpu::totalCompute).sum();
  }

  private static MigGpu gpu(
      String gpu,
      Optional<MigMode> wished,
      boolean inMig,
      List<Device> published,
      DeviceSliceSpec slice,
      Map<String, String> holders) {
    if (!inMig) {
      return new MigGpu(gpu, wished, Optional.empty(), Optional.empty(), List.of());
    }
    var geometry = geometry(gpu, published, slice);
    var placed = new ArrayList<Held>();
    var problems = new ArrayList<String>();
    for (var d : published) {
      placement(geometry, d)
          .ifPresentOrElse(
              p -> placed.add(new Held(p, Optional.ofNullable(holders.get(d.name())))),
              () -> problems.add(d.name() + ": no profile of " + geometry.model() + " fits it"));
    }
    // A dynamic GPU offers every placement, so they overlap; a static layout never does.
    boolean dynamic = false;
    for (int i = 0; i < placed.size() && !dynamic; i++) {
      for (int j = i + 1; j < placed.size() && !dynamic; j++) {
        dynamic = placed.get(i).placement().overlaps(placed.get(j).placement());
      }
    }
    var occupancy = MigOccupancy.empty(gpu, geometry);
    for (var h : placed) {
      if (dynamic && h.holder().isEmpty()) {
        continue; // a possible instance nobody holds does not exist
      }
      if (!occupancy.canCreate(h.placement())) {
        problems.add(
            h.placement() + " held by " + h.holder().orElse("none") + " overlaps another (I1)");
        continue;
      }
      occupancy =
          h.holder().isPresent()
              ? occupancy.with(h.placement(), h.holder().get())
              : new MigOccupancy(
                  gpu, geometry, concat(occupancy.instances(), MigInstance.free(h.placement())));
    }
    return new MigGpu(
        gpu,
        wished,
        Optional.of(dynamic ? MigMode.Dynamic : MigMode.Static),
        Optional.of(occupancy),
        problems);
  }

  private record Held(MigPlacement placement, Optional<String> holder) {}

  private static List<MigInstance> concat(List<MigInstance> list, MigInstance one) {
    var out = new ArrayList<>(list);
    out.add(one);
    return out;
  }

  /**
   * The GPU's geometry: the known one of its model, else as its slice shows it (its counters, and
   * the profiles of its published slices) — a model this build does not know still draws.
   */
  private static MigGeometry geometry(String gpu, List<Device> published, DeviceSliceSpec slice) {
    var model = published.stream().map(d -> d.attributes().get("model")).findFirst();
    var known = model.flatMap(MigGeometry::known);
    if (known.isPresent()) {
      return known.get();
    }
    var counters =
        slice.sharedCounters().stream()
            .filter(c -> c.name().equals(gpu))
            .findFirst()
            .map(c -> c.counters())
            .orElse(Map.of());
    int compute = counters.getOrDefault(MigGeometry.COMPUTE, 0L).intValue();
    int memory = (int) counters.keySet().stream().filter(k -> k.startsWith("memory-")).count();
    var starts = new LinkedHashMap<String, TreeSet<Integer>>();
    var shapes = new HashMap<String, int[]>();
    for (var d : published) {
      var a = d.attributes();
      var label = a.getOrDefault("profile", "");
      int c = intOf(a.get("computeSlices"));
      int m = intOf(a.get("memorySlices"));
      int s = intOf(a.get("start"));
      if (label.isEmpty() || c < 1 || m < 1 || s < 0) {
        continue;
      }
      starts.computeIfAbsent(label, k -> new TreeSet<>()).add(s);
      shapes.put(label, new int[] {c, m});
      compute = Math.max(compute, c);
      memory = Math.max(memory, s + m);
    }
    var profiles = new ArrayList<MigProfile>();
    starts.forEach(
        (label, s) ->
            profiles.add(
                new MigProfile(label, shapes.get(label)[0], shapes.get(label)[1], List.copyOf(s))));
    return new MigGeometry(
        model.orElse("unknown"), Math.max(1, compute), Math.max(1, memory), profiles);
  }

  /** Where a published slice stands: its profile by capacity (labels drift), at its start. */
  private static Optional<MigPlacement> placement(MigGeometry geometry, Device d) {
    var a = d.attributes();
    int c = intOf(a.get("computeSlices"));
    int m = intOf(a.get("memorySlices"));
    int s = intOf(a.get("start"));
    return geometry.profiles().stream()
        .filter(p -> p.computeSlices() == c && p.memorySlices() == m && p.starts().contains(s))
        .findFirst()
        .map(p -> new MigPlacement(p, s));
  }

  private static int intOf(String text) {
    try {
      return text == null ? -1 : Integer.parseInt(text);
    } catch (NumberFormatException e) {
      return -1;
    }
  }
}
