package dev.quartermaster.agent.ledger;

import dev.quartermaster.agent.names.SafeNames;
import dev.quartermaster.api.validation.Names;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * What a prepare asks for: the claim, the devices on this node it was allocated, and the compute
 * domain the node must belong to while the claim is prepared.
 *
 * <p>Device names are validated here (they become CDI device names and file names), so a request
 * that would escape a directory never reaches the ledger.
 */
public record PrepareRequest(ClaimRef claim, List<String> devices, Optional<String> computeDomain) {
  public PrepareRequest {
    Objects.requireNonNull(claim, "claim");
    devices = List.copyOf(devices);
    computeDomain = computeDomain == null ? Optional.empty() : computeDomain;
    if (devices.isEmpty()) {
      throw new IllegalArgumentException("claim " + claim + ": prepare needs at least one device");
    }
    var seen = new HashSet<String>();
    for (var d : devices) {
      SafeNames.requireDeviceName(d);
      if (!seen.add(d)) {
        throw new IllegalArgumentException("claim " + claim + ": device " + d + " listed twice");
      }
    }
    computeDomain.ifPresent(
        d -> {
          if (!Names.isDnsLabel(d)) {
            throw new IllegalArgumentException(
                "claim " + claim + ": compute domain '" + d + "': " + Names.DNS_LABEL_RULE);
          }
        });
  }

  /** A request without a compute domain. */
  public static PrepareRequest of(ClaimRef claim, List<String> devices) {
    return new PrepareRequest(claim, devices, Optional.empty());
  }
}
