package dev.quartermaster.api.device.mig;

import dev.quartermaster.api.device.CounterConsumption;
import dev.quartermaster.api.device.CounterSet;
import dev.quartermaster.api.device.Device;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Optional;

/**
 * The MIG geometry of one GPU model: its compute and memory slices and the profiles it offers, and
 * how its possible instances are published as devices that consume the GPU's counters (KEP-4815),
 * so that {@link dev.quartermaster.api.device.use.DeviceUse} judges overlap like any other sharing.
 *
 * <p>The counters of GPU {@code g} (set {@code g}): {@code compute} (7) and one counter per
 * memory-slice position, {@code memory-0} … {@code memory-7}, one of each. An instance consumes its
 * compute slices and each position it spans, so two instances that overlap consume the same
 * position twice: <em>overlap is over-consumption</em>, with no rule of its own.
 *
 * @param model as NVML names the product, e.g. {@code H200-141GB}
 * @param computeSlices compute slices of the whole GPU (7)
 * @param memorySlices memory-slice positions of the whole GPU (8)
 * @param profiles the profiles it offers, smallest first ({@code +me} media variants left out)
 */
public record MigGeometry(
    String model, int computeSlices, int memorySlices, List<MigProfile> profiles) {

  /**
   * The device class of a possible instance: a claim asks for slices through a {@code DeviceClass}
   * of this class (by profile, or by attributes), never through the whole GPUs' {@code gpu}.
   */
  public static final String DEVICE_CLASS = "mig";

  /** The counter of all compute slices. */
  public static final String COMPUTE = "compute";

  /** H100-80GB, from {@code nvidia-smi mig -lgipp} as NVIDIA's MIG user guide (v580) lists it. */
  public static final MigGeometry H100_80GB = sevenEighths("H100-80GB", 10, 20, 40, 80);

  /**
   * H200-141GB: the same instance counts as H100 (7, 4, 3, 2, 1, 1; MIG user guide), so the same
   * positions — inferred from those counts, not from an {@code -lgipp} listing.
   */
  public static final MigGeometry H200_141GB = sevenEighths("H200-141GB", 18, 35, 71, 141);

  /** B200-180GB: the same counts again (MIG user guide), positions inferred likewise. */
  public static final MigGeometry B200_180GB = sevenEighths("B200-180GB", 23, 45, 90, 180);

  public MigGeometry {
    profiles = List.copyOf(profiles);
    if (computeSlices < 1 || memorySlices < 1 || memorySlices > 30) {
      throw new IllegalArgumentException(model + ": 1 to 30 memory slices, at least 1 compute");
    }
    for (var p : profiles) {
      if (p.computeSlices() > computeSlices
          || p.starts().getLast() + p.memorySlices() > memorySlices) {
        throw new IllegalArgumentException(model + ": " + p.label() + " does not fit the GPU");
      }
    }
  }

  /**
   * The 7-compute, 8-memory-slice layout of A100/H100/H200/B200: {@code 1g} at 0…6 spanning 1,
   * {@code 1g} with two memory slices at 0,2,4,6, {@code 2g} at 0,2,4, {@code 3g} at 0,4 spanning
   * 4, {@code 4g} at 0 spanning 4, {@code 7g} at 0 spanning 8. The numbers are the labels'
   * gigabytes.
   */
  private static MigGeometry sevenEighths(
      String model, int oneSlice, int twoSlices, int fourSlices, int whole) {
    return new MigGeometry(
        model,
        7,
        8,
        List.of(
            new MigProfile("1g." + oneSlice + "gb", 1, 1, List.of(0, 1, 2, 3, 4, 5, 6)),
            new MigProfile("1g." + twoSlices + "gb", 1, 2, List.of(0, 2, 4, 6)),
            new MigProfile("2g." + twoSlices + "gb", 2, 2, List.of(0, 2, 4)),
            new MigProfile("3g." + fourSlices + "gb", 3, 4, List.of(0, 4)),
            new MigProfile("4g." + fourSlices + "gb", 4, 4, List.of(0)),
            new MigProfile("7g." + whole + "gb", 7, 8, List.of(0))));
  }

  /** Every geometry known here. */
  public static final List<MigGeometry> KNOWN = List.of(H100_80GB, H200_141GB, B200_180GB);

  /** The attributes a slice device carries: what a device class may select slices by. */
  public static final String PARENT = "parent";

  public static final String MODEL = "model";
  public static final String PROFILE = "profile";
  public static final String COMPUTE_SLICES = "computeSlices";
  public static final String MEMORY_SLICES = "memorySlices";
  public static final String START = "start";

  /** Bytes, as a whole GPU's {@code memory} attribute: what its label says ({@code 71gb}). */
  public static final String MEMORY = "memory";

  /** The geometries known here, by model. */
  public static Optional<MigGeometry> known(String model) {
    return KNOWN.stream().filter(g -> g.model.equals(model)).findFirst();
  }

  /** The geometry of slice device {@code d}, by its {@code model}, if it is a known one. */
  public static Optional<MigGeometry> of(Device d) {
    return d.deviceClass().equals(DEVICE_CLASS)
        ? Optional.ofNullable(d.attributes().get(MODEL)).flatMap(MigGeometry::known)
        : Optional.empty();
  }

  /**
   * The instance slice device {@code d} stands for, keyed on its capacity and start (labels drift):
   * empty if it is no slice of this geometry.
   */
  public Optional<MigPlacement> placement(Device d) {
    try {
      int compute = Integer.parseInt(d.attributes().getOrDefault(COMPUTE_SLICES, ""));
      int memory = Integer.parseInt(d.attributes().getOrDefault(MEMORY_SLICES, ""));
      int start = Integer.parseInt(d.attributes().getOrDefault(START, ""));
      return profiles.stream()
          .filter(
              p ->
                  p.computeSlices() == compute
                      && p.memorySlices() == memory
                      && p.starts().contains(start))
          .findFirst()
          .map(p -> new MigPlacement(p, start));
    } catch (NumberFormatException e) {
      return Optional.empty();
    }
  }

  /**
   * A profile's memory in bytes as its label states it ({@code 3g.71gb}: 71 GB), the figure a user
   * reads and asks for with {@code memory Gte}; empty for a label that states none.
   */
  static Optional<Long> memoryBytes(MigProfile p) {
    var m = java.util.regex.Pattern.compile("\\.(\\d+)gb").matcher(p.label());
    return m.find() ? Optional.of(Long.parseLong(m.group(1)) * 1_000_000_000L) : Optional.empty();
  }

  public Optional<MigProfile> profile(String label) {
    return profiles.stream().filter(p -> p.label().equals(label)).findFirst();
  }

  /** The profile that takes the whole GPU, if it offers one. */
  public Optional<MigProfile> whole() {
    return profiles.stream()
        .filter(p -> p.computeSlices() == computeSlices && p.memorySlices() == memorySlices)
        .findFirst();
  }

  /** Its profiles, most compute first, then most memory: the order fragmentation is judged in. */
  public List<MigProfile> largestFirst() {
    return profiles.stream()
        .sorted(
            Comparator.comparingInt(MigProfile::computeSlices)
                .thenComparingInt(MigProfile::memorySlices)
                .reversed())
        .toList();
  }

  /** Every possible instance: each profile at each of its starts. */
  public List<MigPlacement> placements() {
    var out = new ArrayList<MigPlacement>();
    profiles.forEach(p -> p.starts().forEach(s -> out.add(new MigPlacement(p, s))));
    return List.copyOf(out);
  }

  /** The counter of memory-slice position {@code i}. */
  public static String memoryCounter(int position) {
    return "memory-" + position;
  }

  /** The counters GPU {@code gpu} publishes in MIG mode (set named after the GPU). */
  public CounterSet counterSet(String gpu) {
    var counters = new LinkedHashMap<String, Long>();
    counters.put(COMPUTE, (long) computeSlices);
    for (int i = 0; i < memorySlices; i++) {
      counters.put(memoryCounter(i), 1L);
    }
    return new CounterSet(gpu, counters);
  }

  /** The device name of a possible instance: capacity and start, never the drifting label. */
  public static String deviceName(String gpu, MigPlacement placement) {
    return gpu + "-mig-" + placement.profile().shape() + "-" + placement.start();
  }

  /** A possible instance of GPU {@code gpu} as a device consuming the GPU's counters. */
  public Device device(String gpu, MigPlacement placement) {
    var consumes = new LinkedHashMap<String, Long>();
    consumes.put(COMPUTE, (long) placement.profile().computeSlices());
    for (int i = 0; i < placement.profile().memorySlices(); i++) {
      consumes.put(memoryCounter(placement.start() + i), 1L);
    }
    var attributes = new LinkedHashMap<String, String>();
    attributes.put(PARENT, gpu);
    attributes.put(MODEL, model);
    attributes.put(PROFILE, placement.profile().label());
    attributes.put(COMPUTE_SLICES, Integer.toString(placement.profile().computeSlices()));
    attributes.put(MEMORY_SLICES, Integer.toString(placement.profile().memorySlices()));
    attributes.put(START, Integer.toString(placement.start()));
    memoryBytes(placement.profile()).ifPresent(b -> attributes.put(MEMORY, Long.toString(b)));
    return new Device(
        deviceName(gpu, placement),
        DEVICE_CLASS,
        attributes,
        Device.Health.Healthy,
        "",
        List.of(new CounterConsumption(gpu, consumes)));
  }

  /**
   * What GPU {@code gpu} in MIG mode publishes: every possible instance. The GPU itself is not
   * among them; the whole-GPU profile ({@code 7g}) is how a claim takes all of it.
   */
  public List<Device> devices(String gpu) {
    return placements().stream().map(p -> device(gpu, p)).toList();
  }
}
