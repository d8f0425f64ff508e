package dev.quartermaster.api.validation;

import dev.quartermaster.api.allocation.GangLedger;
import dev.quartermaster.api.allocation.GangLedgerSpec;
import dev.quartermaster.api.allocation.GangReservation;
import dev.quartermaster.api.allocation.NodeAllocationSpec;

/** Rules for a node's allocation record and for the gang ledger. */
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

  /**
   * The ledger is one object: a second one would hold devices the store's guard, which reads the
   * one by name, would not see.
   */
  static void ledger(String name, GangLedgerSpec spec, Violations v) {
    v.check(
        name.equals(GangLedger.NAME),
        "metadata.name",
        "must be " + GangLedger.NAME + ": the cluster has one gang ledger");
    spec.reservations()
        .forEach(
            (key, r) -> {
              var at = "spec.reservations." + key;
              v.check(key.equals(r.key()), at, "key must be <workload>/<gang>: " + r.key());
              v.dnsLabel(at + ".workload", r.workload());
              v.check(!r.workloadUid().isEmpty(), at + ".workloadUid", "required");
              v.check(!r.gang().isEmpty(), at + ".gang", "required");
              v.check(!r.members().isEmpty(), at + ".members", "must name at least one member");
              reservation(at, r, v);
            });
  }

  private static void reservation(String at, GangReservation r, Violations v) {
    for (int i = 0; i < r.members().size(); i++) {
      var m = r.members().get(i);
      var mat = at + ".members[" + i + "]";
      v.dnsLabel(mat + ".task", m.task());
      v.check(!m.taskUid().isEmpty(), mat + ".taskUid", "required");
      v.dnsLabel(mat + ".node", m.node());
      v.check(!m.claims().isEmpty(), mat + ".claims", "must name at least one claim");
      for (int j = 0; j < m.claims().size(); j++) {
        var c = m.claims().get(j);
        var cat = mat + ".claims[" + j + "]";
        v.dnsLabel(cat + ".claim", c.claim());
        v.check(!c.uid().isEmpty() && c.uid().length() <= 64, cat + ".uid", "required, at most 64");
        v.check(!c.devices().isEmpty(), cat + ".devices", "must name at least one device");
        c.devices().forEach(d -> v.dnsLabel(cat + ".devices", d.device()));
      }
    }
  }
}
