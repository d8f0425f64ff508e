package dev.quartermaster.control.workload;

import dev.quartermaster.api.claim.ClaimConditions;
import dev.quartermaster.api.domain.ComputeDomainSpec;
import dev.quartermaster.api.meta.Condition;
import dev.quartermaster.api.workload.Workload;
import dev.quartermaster.api.workload.WorkloadConditions;
import dev.quartermaster.control.cluster.Conditions;
import dev.quartermaster.control.cluster.Informers;
import java.util.HashSet;

/** The workload's {@code Schedulable} condition, from the cached device classes and claims. */
final class Schedulability {
  private static final String SCHEDULABLE = WorkloadConditions.SCHEDULABLE;

  private Schedulability() {}

  /**
   * False when a claim template names a device class that does not exist (or, for a workload in a
   * compute domain, the channel class its tasks' channel claims name), or when one of the
   * workload's claims cannot be allocated; the message names the group, template and what is wrong.
   */
  static Condition of(Workload w, Informers informers) {
    var classes = new HashSet<>(informers.deviceClasses().cache().keys());
    for (var g : w.spec().groups()) {
      for (var ct : g.claimTemplates()) {
        for (var r : ct.spec().requests()) {
          if (!classes.contains(r.deviceClassName())) {
            return Conditions.of(
                SCHEDULABLE,
                false,
                WorkloadConditions.NO_SUCH_DEVICE_CLASS,
                "group "
                    + g.name()
                    + " claim template "
                    + ct.name()
                    + " request "
                    + r.name()
                    + " names device class '"
                    + r.deviceClassName()
                    + "', which does not exist");
          }
        }
      }
    }
    var domain = w.spec().computeDomain();
    if (domain.isPresent() && !classes.contains(ComputeDomainSpec.CHANNEL_DEVICE_CLASS)) {
      return Conditions.of(
          SCHEDULABLE,
          false,
          WorkloadConditions.NO_SUCH_DEVICE_CLASS,
          "it names compute domain "
              + domain.get()
              + ", whose tasks each claim IMEX channels of device class '"
              + ComputeDomainSpec.CHANNEL_DEVICE_CLASS
              + "', which does not exist (qm server and qm up create it; else apply a DeviceClass"
              + " named channel of class channel)");
    }
    for (var g : w.spec().groups()) {
      // Indexed: this runs on every pass of a workload of thousands of tasks, and nearly always
      // finds none.
      var unplaceable =
          informers
              .claims()
              .cache()
              .byIndex(Informers.BY_UNPLACEABLE, w.metadata().name() + "/" + g.name());
      if (!unplaceable.isEmpty()) {
        var c = unplaceable.getFirst();
        var allocated =
            Condition.find(c.status().conditions(), ClaimConditions.ALLOCATED).orElseThrow();
        return Conditions.of(
            SCHEDULABLE,
            false,
            allocated.reason(),
            "claim " + c.metadata().name() + ": " + allocated.message());
      }
    }
    return Conditions.of(
        SCHEDULABLE, true, "Schedulable", "every claim template names an existing device class");
  }
}
