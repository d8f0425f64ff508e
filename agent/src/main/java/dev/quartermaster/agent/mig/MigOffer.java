package dev.quartermaster.agent.mig;

import dev.quartermaster.agent.discovery.DiscoveredGpu;
import dev.quartermaster.api.device.CounterSet;
import dev.quartermaster.api.device.Device;
import dev.quartermaster.api.device.mig.MigModels;
import dev.quartermaster.api.node.MigMode;
import java.util.List;
import java.util.Optional;

/**
 * What one GPU offers in the node's DeviceSlice, by its MIG mode <em>now</em> and the operator's
 * wish: not in MIG mode, itself whole (class {@code gpu}); in MIG mode, its counter set and its
 * slices (class {@code mig}) and never itself: every placement when the wish is Dynamic, exactly
 * the instances that exist otherwise (Static, or a wish withdrawn while instances remain). A
 * product whose geometry is not known offers nothing in MIG mode, and {@code note} says why. Pure.
 *
 * @param whole the GPU itself, when it is offered whole
 * @param note why it offers less than it might (a pending mode change, an unknown model)
 */
public record MigOffer(
    Optional<DiscoveredGpu> whole,
    Optional<CounterSet> counters,
    List<MigSlice> slices,
    Optional<String> note) {
  public MigOffer {
    slices = List.copyOf(slices);
  }

  public static MigOffer of(
      DiscoveredGpu gpu, Optional<MigMode> wish, boolean enabled, List<LiveInstance> existing) {
    if (!enabled) {
      return new MigOffer(
          Optional.of(gpu),
          Optional.empty(),
          List.of(),
          wish.map(w -> gpu.name() + ": MIG mode (" + w + ") not on yet; offered whole"));
    }
    var geometry = MigModels.forProduct(gpu.model());
    if (geometry.isEmpty()) {
      return new MigOffer(
          Optional.empty(),
          Optional.empty(),
          List.of(),
          Optional.of(
              gpu.name()
                  + " is in MIG mode but its model \""
                  + gpu.model()
                  + "\" has no known MIG geometry; nothing of it is offered"));
    }
    var migGpu = new MigGpu(gpu.index(), gpu.name(), geometry.get());
    boolean dynamic = wish.equals(Optional.of(MigMode.Dynamic));
    var placements =
        dynamic
            ? geometry.get().placements()
            : existing.stream().map(LiveInstance::placement).toList();
    return new MigOffer(
        Optional.empty(),
        Optional.of(geometry.get().counterSet(gpu.name())),
        placements.stream().map(p -> new MigSlice(gpu, migGpu, p, dynamic)).toList(),
        wish.isEmpty()
            ? Optional.of(gpu.name() + ": MIG mode to be turned off; its instances are offered")
            : Optional.empty());
  }

  /** The devices it publishes (health is the tracker's to add, as for whole GPUs). */
  public List<Device> devices() {
    if (whole.isPresent()) {
      return List.of(whole.get().toDevice());
    }
    return slices.stream()
        .map(s -> s.gpu().geometry().device(s.parent().name(), s.placement()))
        .toList();
  }
}
