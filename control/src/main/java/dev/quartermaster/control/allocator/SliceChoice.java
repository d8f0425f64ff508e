package dev.quartermaster.control.allocator;

import dev.quartermaster.api.device.Device;
import dev.quartermaster.api.device.mig.LeastFragmenting;
import dev.quartermaster.api.device.mig.MigChoice;
import dev.quartermaster.api.device.mig.MigGeometry;
import dev.quartermaster.api.device.mig.MigHoldings;
import dev.quartermaster.api.device.mig.MigPlacement;
import dev.quartermaster.api.device.mig.MigRequest;
import java.util.HashMap;
import java.util.List;
import java.util.Optional;
import java.util.function.Predicate;

/**
 * Which of a node's MIG slice devices a request takes next: of those it may take (free by device
 * use, matching its class and selectors), the one {@link LeastFragmenting} places — the smallest
 * profile that serves, a partly used GPU before a whole one, the least loss of larger profiles —
 * over each GPU's instances as the node's holdings (and the fit's own takings) show them.
 */
final class SliceChoice {
  private SliceChoice() {}

  private record At(String gpu, MigPlacement placement) {}

  /**
   * The slice to take among {@code devices} (all of a node's, held ones too: they are what its
   * GPUs' instances are read from), or empty if {@code candidate} accepts none; a slice whose model
   * is unknown here goes by device order, after the others.
   */
  static Optional<Device> next(
      List<Device> devices, Predicate<Device> candidate, Predicate<String> held) {
    var byPlacement = new HashMap<At, Device>();
    Device unjudged = null;
    for (var d : devices) {
      if (!candidate.test(d)) {
        continue;
      }
      var at =
          MigGeometry.of(d)
              .flatMap(g -> g.placement(d))
              .flatMap(
                  p ->
                      Optional.ofNullable(d.attributes().get(MigGeometry.PARENT))
                          .map(gpu -> new At(gpu, p)));
      if (at.isPresent()) {
        byPlacement.putIfAbsent(at.get(), d);
      } else if (unjudged == null || DeviceFit.DEVICE_ORDER.compare(d, unjudged) < 0) {
        unjudged = d;
      }
    }
    if (!byPlacement.isEmpty()) {
      var fleet =
          MigHoldings.of(devices, name -> held.test(name) ? Optional.of("held") : Optional.empty());
      var choice =
          LeastFragmenting.RULE.choose(
              fleet, MigRequest.ANY, (gpu, p) -> byPlacement.containsKey(new At(gpu, p)));
      if (choice instanceof MigChoice.Place place) {
        return Optional.of(byPlacement.get(new At(place.gpu(), place.placement())));
      }
    }
    return Optional.ofNullable(unjudged);
  }
}
