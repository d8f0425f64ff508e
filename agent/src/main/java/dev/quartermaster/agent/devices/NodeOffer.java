package dev.quartermaster.agent.devices;

import dev.quartermaster.agent.discovery.DiscoveredChannel;
import dev.quartermaster.agent.health.HealthTracker;
import dev.quartermaster.agent.mig.MigControl;
import dev.quartermaster.agent.mig.MigOffer;
import dev.quartermaster.agent.mig.NodeMig;
import dev.quartermaster.api.device.CounterSet;
import dev.quartermaster.api.device.Device;
import dev.quartermaster.api.device.mps.MpsShares;
import dev.quartermaster.api.device.timeslice.TimeSlices;
import dev.quartermaster.api.node.GpuSharing;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * What a node offers of what discovery found, by each GPU's MIG mode and the operator's sharing
 * wish: the one rule for {@code qm agent}'s DeviceSlice and the kubelet plugin's ResourceSlices, so
 * both publish, and their ledgers judge, the same devices and counters.
 *
 * <p>A GPU in MIG mode offers its counter set and slices, never itself; a GPU the operator shares
 * offers its replicas or its MPS device instead of itself ({@link SharingOffer}), in the form
 * nothing held would vanish by; any other GPU is offered whole. Health is {@code health}'s (an XID
 * on a GPU's handle that names no instance is each slice's, one that names an instance only that
 * slice's).
 */
public final class NodeOffer {
  private final HealthTracker health;
  private volatile NodeMig mig = new NodeMig(MigControl.NONE);
  private final SharingOffer sharing = new SharingOffer();

  public NodeOffer(HealthTracker health) {
    this.health = Objects.requireNonNull(health, "health");
  }

  /**
   * What one offer publishes: the devices, the counter sets of the GPUs in MIG mode, why a GPU
   * offers less than it might ({@code notes}), a shared GPU's wait ({@code sharingWaits}), and each
   * GPU that changed form since the last offer ({@code sharingChanges}).
   */
  public record Offered(
      List<Device> devices,
      List<CounterSet> counters,
      List<String> notes,
      List<String> sharingWaits,
      List<String> sharingChanges) {
    public Offered {
      devices = List.copyOf(devices);
      counters = List.copyOf(counters);
      notes = List.copyOf(notes);
      sharingWaits = List.copyOf(sharingWaits);
      sharingChanges = List.copyOf(sharingChanges);
    }

    /** What these devices consume while held, on node {@code node}: what a ledger judges by. */
    public dev.quartermaster.api.device.use.DeviceUse use(String node) {
      return dev.quartermaster.api.device.use.DeviceUse.of(
          new dev.quartermaster.api.device.DeviceSliceSpec(node, devices, counters));
    }
  }

  /**
   * The operator's wish for shared GPUs from now on, as last read; until told, a GPU offers what it
   * offered before.
   */
  public void useSharing(Map<String, GpuSharing> wish) {
    sharing.wish(wish);
  }

  /** Offers GPUs by their MIG mode through {@code next} from now on ({@link MigOffer}). */
  public void useMig(NodeMig next) {
    this.mig = Objects.requireNonNull(next, "mig");
  }

  /** What the node offers of {@code found}, {@code held} being the devices its ledger holds. */
  public Offered offered(Inventory found, Set<String> held) {
    var devices = new ArrayList<Device>();
    var counters = new ArrayList<CounterSet>();
    var notes = new ArrayList<String>();
    var sharingWaits = new ArrayList<String>();
    var offers = mig.offers(found.gpus());
    for (int i = 0; i < offers.size(); i++) {
      var offer = offers.get(i);
      var parent = found.gpus().get(i).name();
      var gpuHealth = health.health(parent);
      if (offer.whole().isPresent()) {
        var shared = sharing.offer(parent, held);
        shared.note().ifPresent(sharingWaits::add);
        var whole = gpuHealth.applyTo(offer.whole().get().toDevice());
        switch (shared.form()) {
          case SharingOffer.TimeSliced(int replicas) ->
              devices.addAll(TimeSlices.replicas(whole, replicas));
          case SharingOffer.Mps(int clients) -> devices.add(MpsShares.template(whole, clients));
          case SharingOffer.Whole w -> {}
        }
        if (!(shared.form() instanceof SharingOffer.Whole)) {
          offer.note().ifPresent(notes::add);
          continue;
        }
      }
      for (var d : offer.devices()) {
        var applied =
            (d.name().equals(parent)
                    ? gpuHealth
                    : gpuHealth.ofSlice(parent, health.reported(d.name())))
                .applyTo(d);
        devices.add(
            new Device(
                applied.name(),
                applied.deviceClass(),
                applied.attributes(),
                applied.health(),
                applied.healthReason(),
                d.consumesCounters()));
      }
      offer.counters().ifPresent(counters::add);
      offer.note().ifPresent(notes::add);
    }
    found.channels().channels().stream().map(DiscoveredChannel::toDevice).forEach(devices::add);
    return new Offered(devices, counters, notes, sharingWaits, sharing.drainChanges());
  }
}
