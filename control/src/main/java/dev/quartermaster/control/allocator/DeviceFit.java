package dev.quartermaster.control.allocator;

import dev.quartermaster.api.claim.Allocation.AllocatedDevice;
import dev.quartermaster.api.claim.ShareRequest;
import dev.quartermaster.api.device.Device;
import dev.quartermaster.api.device.DeviceClass;
import dev.quartermaster.api.device.mig.MigGeometry;
import dev.quartermaster.api.device.mps.MpsShare;
import dev.quartermaster.api.device.mps.MpsShares;
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
        if (cls.spec().deviceClass().equals(MpsShares.DEVICE_CLASS)) {
          // Shares are not published: each is made here from its GPU's device, and only these.
          if (request.share().isEmpty()) {
            return Optional.empty();
          }
          for (var t : devices.stream().sorted(DEVICE_ORDER).toList()) {
            if (taken == request.count()) {
              break;
            }
            var share =
                MpsShares.isTemplate(t)
                    ? shareOf(t, request.share().get(), used, mine, free)
                    : null;
            if (share != null
                && matches(t, cls)
                && request.selectors().stream().allMatch(s -> s.matches(t.attributes()))
                && free.isFree(share, used)) {
              used.add(share.name());
              mine.add(new AllocatedDevice(request.name(), share.name()));
              taken++;
            }
          }
          if (taken < request.count()) {
            return Optional.empty();
          }
          continue;
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

  /**
   * The share of MPS device {@code template} that {@code want} would take: its lowest number not
   * held in that size; null if the claim holds a share of that GPU already ({@code mine}: one
   * claim, one share of a GPU, since two would only split one client's limits; the other claims of
   * the fit, a gang's members, may each take one).
   */
  private static Device shareOf(
      Device template,
      ShareRequest want,
      Set<String> used,
      List<AllocatedDevice> mine,
      FreeTest free) {
    var gpu = MpsShares.gpuOfTemplate(template.name()).orElseThrow();
    if (mine.stream()
        .anyMatch(u -> MpsShares.parse(u.device()).filter(s -> s.gpu().equals(gpu)).isPresent())) {
      return null;
    }
    int gib = want.memoryGiB().orElse(Integer.MAX_VALUE);
    for (int k = 0; k < MpsShares.MAX_CLIENTS; k++) {
      var share = new MpsShare(gpu, want.compute(), gib, k);
      if (!free.isHeld(share.name(), used)) {
        return MpsShares.share(template, share);
      }
    }
    return null;
  }

  static boolean matches(Device d, DeviceClass cls) {
    return d.deviceClass().equals(cls.spec().deviceClass())
        && cls.spec().selectors().stream().allMatch(s -> s.matches(d.attributes()));
  }
}
