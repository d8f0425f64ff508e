package dev.quartermaster.api.device.mig;

import dev.quartermaster.api.device.Device;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;

/**
 * The MIG GPUs of one node as its published slice devices and their holders show them: a {@link
 * MigOccupancy} per GPU, for the placement choice and for what an operator reads. A GPU whose model
 * is unknown here, or whose held slices overlap (a record I1 forbids), has no occupancy: nothing
 * can be judged of it by geometry, and the caller falls back to its plain device order.
 */
public final class MigHoldings {
  private MigHoldings() {}

  /** gpu-2 before gpu-10. */
  public static final Comparator<String> GPU_ORDER =
      Comparator.comparingInt(String::length).thenComparing(Comparator.naturalOrder());

  /**
   * Each MIG GPU among {@code devices} (by its slices' {@code parent}, in {@link #GPU_ORDER}) with
   * the instances its held slices stand for; {@code holderOf} names a slice's holder as an operator
   * reads it, empty when none holds it.
   */
  public static List<MigOccupancy> of(
      List<Device> devices, Function<String, Optional<String>> holderOf) {
    var geometries = new LinkedHashMap<String, MigGeometry>();
    var held = new LinkedHashMap<String, List<MigInstance>>();
    var broken = new java.util.HashSet<String>();
    for (var d : devices) {
      var geometry = MigGeometry.of(d);
      var parent = d.attributes().get(MigGeometry.PARENT);
      if (geometry.isEmpty() || parent == null) {
        continue;
      }
      if (geometries.putIfAbsent(parent, geometry.get()) != null
          && !geometries.get(parent).equals(geometry.get())) {
        broken.add(parent);
      }
      var holder = holderOf.apply(d.name());
      var placement = geometry.get().placement(d);
      if (placement.isEmpty()) {
        broken.add(parent);
      } else if (holder.isPresent()) {
        held.computeIfAbsent(parent, k -> new ArrayList<>())
            .add(MigInstance.held(placement.get(), holder.get()));
      }
    }
    var out = new ArrayList<MigOccupancy>();
    for (var gpu : geometries.keySet().stream().sorted(GPU_ORDER).toList()) {
      var instances = held.getOrDefault(gpu, List.of());
      if (broken.contains(gpu)) {
        continue;
      }
      try {
        out.add(new MigOccupancy(gpu, geometries.get(gpu), instances));
      } catch (IllegalArgumentException overlapping) {
        // left out: the guards refuse such a record, and no choice is judged over one
      }
    }
    return out;
  }

  /** As {@link #of}, keyed by GPU. */
  public static Map<String, MigOccupancy> byGpu(
      List<Device> devices, Function<String, Optional<String>> holderOf) {
    var out = new LinkedHashMap<String, MigOccupancy>();
    of(devices, holderOf).forEach(o -> out.put(o.gpu(), o));
    return out;
  }
}
