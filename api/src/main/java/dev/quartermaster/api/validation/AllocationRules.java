package dev.quartermaster.api.validation;

import dev.quartermaster.api.allocation.NodeAllocationSpec;

/** Rules for a node's allocation record. */
final class AllocationRules {
  /** Room for every device a node may publish, IMEX channels (2,048) included. */
  static final int MAX_DEVICES = 8192;

  private AllocationRules() {}

  static void spec(NodeAllocationSpec spec, Violations v) {
    v.check(
        spec.devices().size() <= MAX_DEVICES,
        "spec.devices",
        "must have at most " + MAX_DEVICES + " entries");
    spec.devices()
        .forEach(
            (device, holder) -> {
              var at = "spec.devices." + device;
              v.check(Names.isDnsLabel(device), at, "key: " + Names.DNS_LABEL_RULE);
              v.dnsLabel(at + ".claim", holder.claim());
              v.check(!holder.uid().isEmpty(), at + ".uid", "required");
              v.check(holder.uid().length() <= 64, at + ".uid", "must be at most 64 characters");
            });
  }
}
