package dev.quartermaster.control.allocator;

import dev.quartermaster.api.claim.ResourceClaim;
import dev.quartermaster.api.device.DeviceClass;
import dev.quartermaster.api.device.mps.MpsShares;
import dev.quartermaster.api.domain.ComputeDomainSpec;
import dev.quartermaster.control.cluster.Informers;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * What refuses a set of pending claims before any node is looked at: a compute domain that is
 * missing or going, or IMEX channels asked for without one. The same for a task's claims and for a
 * gang's; and the device classes, as the caches show them, that the needs are read against.
 */
final class PlacementChecks {
  private final Informers informers;

  PlacementChecks(Informers informers) {
    this.informers = informers;
  }

  /** The device classes by name. */
  Map<String, DeviceClass> classes() {
    var classes = new HashMap<String, DeviceClass>();
    informers.deviceClasses().cache().list().forEach(c -> classes.put(c.metadata().name(), c));
    return classes;
  }

  /** Why the claims cannot be placed, and what to tell their owner. */
  record Refusal(NoPlacement why, String message) {}

  Optional<Refusal> refusal(List<ResourceClaim> pending, Map<String, DeviceClass> classes) {
    for (var c : pending) {
      var domain = c.spec().computeDomain();
      if (domain.isPresent()) {
        var found = informers.computeDomains().cache().get(domain.get());
        if (found.isEmpty()) {
          return Optional.of(
              new Refusal(
                  NoPlacement.COMPUTE_DOMAIN_NOT_FOUND,
                  "compute domain "
                      + domain.get()
                      + " does not exist; create it (kind ComputeDomain) or fix spec.computeDomain of claim "
                      + c.metadata().name()));
        }
        if (found.get().metadata().isDeleting()) {
          return Optional.of(
              new Refusal(
                  NoPlacement.COMPUTE_DOMAIN_DELETING,
                  "compute domain " + domain.get() + " is being deleted; no new claims join it"));
        }
      }
    }
    for (var c : pending) {
      // The API refuses a request for class "channel" without a domain; this catches any other
      // class that selects channel devices, which would hand out channels no domain daemon serves.
      var channels =
          c.spec().computeDomain().isPresent()
              ? Optional.<String>empty()
              : c.spec().requests().stream()
                  .filter(
                      r ->
                          Optional.ofNullable(classes.get(r.deviceClassName()))
                              .filter(
                                  cls ->
                                      cls.spec()
                                          .deviceClass()
                                          .equals(ComputeDomainSpec.CHANNEL_DEVICE_CLASS))
                              .isPresent())
                  .map(r -> r.name() + " (device class " + r.deviceClassName() + ")")
                  .findFirst();
      for (var r : c.spec().requests()) {
        var cls = classes.get(r.deviceClassName());
        if (cls == null) {
          continue;
        }
        boolean mps = cls.spec().deviceClass().equals(MpsShares.DEVICE_CLASS);
        if (mps != r.share().isPresent()) {
          return Optional.of(
              new Refusal(
                  NoPlacement.SHARE_MISMATCH,
                  "claim "
                      + c.metadata().name()
                      + " request "
                      + r.name()
                      + (mps
                          ? " asks for an MPS GPU (device class "
                              + r.deviceClassName()
                              + ") without saying how much: set share: {compute: <percent>,"
                              + " memory: <N>Gi}"
                          : " asks for a share of device class "
                              + r.deviceClassName()
                              + ", whose devices are not MPS GPUs: only a class of MPS devices"
                              + " (class mps) takes a share")));
        }
      }
      if (channels.isPresent()) {
        return Optional.of(
            new Refusal(
                NoPlacement.CHANNELS_NEED_COMPUTE_DOMAIN,
                "claim "
                    + c.metadata().name()
                    + " request "
                    + channels.get()
                    + " asks for IMEX channels, which need a compute domain: set spec.computeDomain"));
      }
    }
    return Optional.empty();
  }
}
