package dev.quartermaster.control.allocator;

import dev.quartermaster.api.claim.Allocation.AllocatedDevice;
import dev.quartermaster.api.device.Device;
import dev.quartermaster.api.device.DeviceClass;
import dev.quartermaster.api.device.mig.MigGeometry;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Assigns devices of one node to a set of claims: each request takes {@code count} distinct devices
 * of its class's base class that match the class's selectors and its own. Greedy, in request order
 * and device-name order (MIG slices in {@link SliceChoice}'s order instead): it can miss an
 * assignment that exists when requests' selectors overlap in awkward ways, which we accept for
 * predictability.
 */
final class DeviceFit {
  /** gpu-2 before gpu-10. */
  static final Comparator<Device> DEVICE_ORDER =
      Comparator.comparingInt((Device d) -> d.name().length()).thenComparing(Device::name);

  private DeviceFit() {}

  /** Whether a device is free to this fit, given the devices it has {@code taking} so far. */
  @FunctionalInterface
  interface FreeTest {
    boolean isFree(Device d, Set<String> taking);

    /**
     * Whether {@code device} is held, by another or by this fit ({@code taking}): what a MIG GPU's
     * instances are read from ({@link SliceChoice}). Only the fit's takings, unless told more.
     */
    default boolean isHeld(String device, Set<String> taking) {
      return taking.contains(device);
    }
  }

  /**
   * Devices for every claim, from {@code devices} that {@code free} lets it take; empty if they do
   * not all fit. {@code classes} must hold every class the needs name.
   */
  static Optional<Map<String, List<AllocatedDevice>>> fit(
      List<Device> devices,
      List<ClaimNeed> needs,
      Map<String, DeviceClass> classes,
      FreeTest free) {
    var sorted =
        devices.stream().filter(d -> free.isFree(d, Set.of())).sorted(DEVICE_ORDER).toList();
    var used = new HashSet<String>();
    var out = new HashMap<String, List<AllocatedDevice>>();
    for (var need : needs) {
      var mine = new ArrayList<AllocatedDevice>();
      for (var request : need.requests()) {
        var cls = classes.get(request.deviceClassName());
        int taken = 0;
        if (cls.spec().deviceClass().equals(MigGeometry.DEVICE_CLASS)) {
          for (; taken < request.count(); taken++) {
            var d =
                SliceChoice.next(
                    devices,
                    x ->
                        free.isFree(x, used)
                            && matches(x, cls)
                            && request.selectors().stream()
                                .allMatch(s -> s.matches(x.attributes())),
                    name -> free.isHeld(name, used));
            if (d.isEmpty()) {
              break;
            }
            used.add(d.get().name());
            mine.add(new AllocatedDevice(request.name(), d.get().name()));
          }
        }
        for (var d : sorted) {
          if (taken == request.count()) {
            break;
          }
          if (free.isFree(d, used)
              && matches(d, cls)
              && request.selectors().stream().allMatch(s -> s.matches(d.attributes()))) {
            used.add(d.name());
            mine.add(new AllocatedDevice(request.name(), d.name()));
            taken++;
          }
        }
        if (taken < request.count()) {
          return Optional.empty();
        }
      }
      out.put(need.claim(), List.copyOf(mine));
    }
    return Optional.of(out);
  }

  static boolean matches(Device d, DeviceClass cls) {
    return d.deviceClass().equals(cls.spec().deviceClass())
        && cls.spec().selectors().stream().allMatch(s -> s.matches(d.attributes()));
  }
}
