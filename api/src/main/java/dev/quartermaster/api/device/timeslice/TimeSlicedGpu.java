package dev.quartermaster.api.device.timeslice;

import dev.quartermaster.api.device.DeviceSliceSpec;
import dev.quartermaster.api.node.GpuSharing;
import dev.quartermaster.api.node.NodeSpec;
import dev.quartermaster.api.node.SharingMode;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * One GPU of a node wished or published time-sliced, with who holds each replica: the one reading
 * that {@code qm describe node} shows, built from the node's spec, its slice and who holds which
 * device.
 *
 * @param gpu the GPU's device name
 * @param wish the operator's wish ({@code spec.sharing}); empty: to be used whole again
 * @param holders per replica the slice publishes, in number order, its holder ({@code claim/a}) or
 *     empty when free; none while the GPU is still offered whole
 */
public record TimeSlicedGpu(String gpu, Optional<GpuSharing> wish, List<Optional<String>> holders) {
  public TimeSlicedGpu {
    holders = List.copyOf(holders);
  }

  /**
   * The node's time-sliced GPUs, by name.
   *
   * @param held device name → its holder as an operator reads it; a device absent is free
   */
  public static List<TimeSlicedGpu> of(
      NodeSpec spec, DeviceSliceSpec slice, Map<String, String> held) {
    var published = new TreeMap<String, TreeMap<Integer, String>>();
    for (var d : slice.devices()) {
      if (d.deviceClass().equals(TimeSlices.DEVICE_CLASS)) {
        TimeSlices.parse(d.name())
            .ifPresent(
                r ->
                    published
                        .computeIfAbsent(r.gpu(), k -> new TreeMap<>())
                        .put(r.replica(), d.name()));
      }
    }
    var names = new TreeSet<String>(published.keySet());
    spec.sharing()
        .forEach(
            (g, w) -> {
              if (w.mode() == SharingMode.TimeSliced) {
                names.add(g);
              }
            });
    var out = new ArrayList<TimeSlicedGpu>();
    for (var gpu : names) {
      var holders = new ArrayList<Optional<String>>();
      published
          .getOrDefault(gpu, new TreeMap<>())
          .values()
          .forEach(device -> holders.add(Optional.ofNullable(held.get(device))));
      out.add(new TimeSlicedGpu(gpu, Optional.ofNullable(spec.sharing().get(gpu)), holders));
    }
    return List.copyOf(out);
  }

  /**
   * {@code qm get nodes}' SHARED FREE: replicas a claim could still get over the node's time-sliced
   * GPUs, of all they offer, e.g. {@code 1/4}; {@code -} for a node with none.
   */
  public static String freeText(List<TimeSlicedGpu> gpus) {
    if (gpus.isEmpty()) {
      return "-";
    }
    long all = gpus.stream().mapToLong(g -> g.holders().size()).sum();
    long free = all - gpus.stream().mapToLong(TimeSlicedGpu::clients).sum();
    return free + "/" + all;
  }

  public long clients() {
    return holders.stream().filter(Optional::isPresent).count();
  }

  /** The mode wished, and what the slice shows when it differs. */
  public String modeText() {
    var wished =
        wish.map(
                w ->
                    w.mode() == SharingMode.TimeSliced
                        ? "time-sliced by " + w.replicas()
                        : "MPS, up to " + w.replicas() + " clients")
            .orElse("whole wished");
    if (holders.isEmpty()) {
      return wished + "; whole now (its agent shares the GPU once nothing holds it)";
    }
    if (wish.isEmpty()
        || wish.get().mode() != SharingMode.TimeSliced
        || wish.get().replicas() != holders.size()) {
      return wished + "; " + holders.size() + " replicas now (until the held ones are released)";
    }
    return wished;
  }

  /** Each replica as {@code [claim/a]}, or {@code [·]} when free, in number order. */
  public String render() {
    var b = new StringBuilder();
    holders.forEach(h -> b.append('[').append(h.orElse("·")).append(']'));
    return b.toString();
  }
}
