package dev.quartermaster.control.allocator;

import dev.quartermaster.control.allocator.WakeEvent.Cluster;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.Set;

/**
 * Why a key's pending claims got no devices — the reason of their {@code Allocated=False} condition
 * — and which cluster events could change that answer. The table the waiting room ({@link Waiters})
 * parks by: a key is decided again on those events and on its own objects' changes (its claims, its
 * task), never on others.
 */
enum NoPlacement {
  /** A claim names a compute domain that does not exist: only a domain's creation changes that. */
  COMPUTE_DOMAIN_NOT_FOUND("ComputeDomainNotFound", EnumSet.of(Cluster.COMPUTE_DOMAINS)),
  /** A claim names a compute domain being deleted. */
  COMPUTE_DOMAIN_DELETING("ComputeDomainDeleting", EnumSet.of(Cluster.COMPUTE_DOMAINS)),
  /**
   * A claim without a domain asks for a class that selects IMEX channels: a class change could stop
   * that.
   */
  CHANNELS_NEED_COMPUTE_DOMAIN("ChannelsNeedComputeDomain", EnumSet.of(Cluster.DEVICE_CLASSES)),
  /**
   * A request of an MPS class asks for no share, or a request of another class asks for one: a
   * class change could change that.
   */
  SHARE_MISMATCH("ShareMismatch", EnumSet.of(Cluster.DEVICE_CLASSES)),
  /** A request names a device class that does not exist. */
  NO_SUCH_DEVICE_CLASS("NoSuchDeviceClass", EnumSet.of(Cluster.DEVICE_CLASSES)),
  /**
   * No node could hold the request even empty and healthy: more devices published (or a node gone
   * or come) or a class's selectors changed could; devices freed could not.
   */
  UNSATISFIABLE("Unsatisfiable", EnumSet.of(Cluster.NODES, Cluster.SLICES, Cluster.DEVICE_CLASSES)),
  /**
   * Some node could, but none ready has enough free healthy devices now: any change of capacity
   * could.
   */
  WAITING_FOR_DEVICES(
      "WaitingForDevices",
      EnumSet.of(Cluster.NODES, Cluster.RECORDS, Cluster.SLICES, Cluster.DEVICE_CLASSES)),
  /**
   * A gang's members do not all fit at once now: any change of capacity (or of a node's labels, a
   * node change) could. It holds nothing meanwhile.
   */
  WAITING_FOR_GANG(
      "WaitingForGang",
      EnumSet.of(Cluster.NODES, Cluster.RECORDS, Cluster.SLICES, Cluster.DEVICE_CLASSES)),
  /**
   * A gang's members would not all fit at once even on an empty fleet ({@link FleetCapacity}): only
   * a change of the fleet (a node that joins, leaves or is relabelled, devices published or
   * withdrawn, a class changed) could; devices freed could not.
   */
  NEVER_FITS(
      dev.quartermaster.api.gang.GangStatus.NEVER_FITS,
      EnumSet.of(Cluster.NODES, Cluster.SLICES, Cluster.DEVICE_CLASSES)),
  /**
   * Fewer of a gang's members exist (with their claims) than it needs at once: only its own
   * members' changes, which queue it, could change that.
   */
  WAITING_FOR_GANG_MEMBERS("WaitingForGang", EnumSet.noneOf(Cluster.class)),
  /**
   * One member of a gang has more writes (its claims and its task) than one transaction of the
   * store takes, so its reservation cannot be carried out: no cluster event changes that; a change
   * of the gang (its workload's spec, which re-creates its members) does.
   */
  GANG_TOO_LARGE("GangTooLarge", EnumSet.noneOf(Cluster.class));

  private final String reason;
  private final Set<Cluster> wakeOn;

  NoPlacement(String reason, Set<Cluster> wakeOn) {
    this.reason = reason;
    this.wakeOn = wakeOn;
  }

  /** The condition's reason. */
  String reason() {
    return reason;
  }

  /**
   * What a key that got this answer waits for. The domain checks come first, so a key whose claims
   * name a compute domain also waits for domain changes: its domain's deletion changes the answer
   * to {@link #COMPUTE_DOMAIN_DELETING}.
   */
  Waiters.Wait waitFor(boolean namesComputeDomain) {
    var events = new HashSet<WakeEvent>(wakeOn);
    if (namesComputeDomain) {
      events.add(Cluster.COMPUTE_DOMAINS);
    }
    return new Waiters.Wait(reason, events);
  }
}
