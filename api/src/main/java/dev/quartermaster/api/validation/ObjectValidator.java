package dev.quartermaster.api.validation;

import dev.quartermaster.api.allocation.GangLedger;
import dev.quartermaster.api.allocation.NodeAllocation;
import dev.quartermaster.api.claim.ResourceClaim;
import dev.quartermaster.api.device.DeviceClass;
import dev.quartermaster.api.device.DeviceSlice;
import dev.quartermaster.api.domain.ComputeDomain;
import dev.quartermaster.api.domain.ComputeDomainSpec;
import dev.quartermaster.api.error.ApiException;
import dev.quartermaster.api.error.Violation;
import dev.quartermaster.api.event.Event;
import dev.quartermaster.api.meta.ApiObject;
import dev.quartermaster.api.node.Node;
import dev.quartermaster.api.queue.PriorityClass;
import dev.quartermaster.api.queue.Queue;
import dev.quartermaster.api.queue.QuotaLedger;
import dev.quartermaster.api.volume.Volume;
import dev.quartermaster.api.workload.Task;
import dev.quartermaster.api.workload.Workload;
import java.util.List;

/**
 * Checks an object against every rule of its kind and reports all violations, each with its field
 * path ({@code spec.groups[0].replicas: must be >= 0}).
 */
public final class ObjectValidator {
  private ObjectValidator() {}

  public static List<Violation> validate(ApiObject object) {
    var v = new Violations();
    MetaRules.check(object.metadata(), object.kind(), v);
    switch (object) {
      case Node n -> NodeRules.spec(n.spec(), v);
      case DeviceSlice s -> DeviceRules.slice(s.metadata().name(), s.spec(), v);
      case DeviceClass c -> {
        // A queue's quota names device classes and this one key: a class of its name would be
        // counted twice over.
        v.check(
            !c.metadata().name().equals(dev.quartermaster.api.device.mig.MigCharge.QUOTA),
            "metadata.name",
            "is the quota key of MIG compute slices (a queue's quota counts slices by it); name the"
                + " class otherwise");
        v.check(
            !dev.quartermaster.api.device.mps.MpsCharge.QUOTAS.contains(c.metadata().name()),
            "metadata.name",
            "is a quota key of MPS shares (a queue's quota counts their compute and memory by it);"
                + " name the class otherwise");
        DeviceRules.deviceClass(c.spec(), v);
      }
      case ResourceClaim c -> ClaimRules.spec("spec", c.spec(), v);
      case Workload w -> WorkloadRules.workload(w.metadata().name(), w.spec(), v);
      case Task t -> WorkloadRules.task(t.spec(), v);
      case Volume vol -> VolumeRules.volume(vol.spec(), v);
      case ComputeDomain d -> {
        v.check(
            d.spec().numNodes() >= 1 && d.spec().numNodes() <= ComputeDomainSpec.MAX_NODES,
            "spec.numNodes",
            "must be from 1 to " + ComputeDomainSpec.MAX_NODES + " (the nodes the domain spans)");
        v.check(
            d.spec().channelsPerTask() >= 1
                && d.spec().channelsPerTask() <= ComputeDomainSpec.MAX_CHANNELS_PER_TASK,
            "spec.channelsPerTask",
            "must be from 1 to "
                + ComputeDomainSpec.MAX_CHANNELS_PER_TASK
                + " (the IMEX channels each task of the domain gets)");
      }
      case NodeAllocation a -> AllocationRules.spec(a.spec(), v);
      case GangLedger l -> AllocationRules.ledger(l.metadata().name(), l.spec(), v);
      case Event e -> EventRules.spec(e.spec(), v);
      case Queue q -> QueueRules.queue(q.spec(), v);
      case PriorityClass p -> QueueRules.priorityClass(p.spec(), v);
      case QuotaLedger l -> QueueRules.ledger(l.spec(), v);
      default -> v.add("kind", "unknown kind " + object.kind().name());
    }
    return v.list();
  }

  /** Throws a 422 {@link ApiException} listing every violation, if there are any. */
  public static void require(ApiObject object) {
    fail(object, validate(object));
  }

  /**
   * The rules for a client's create: {@link #validate}, no server-owned metadata, and no
   * system-owned status.
   */
  public static List<Violation> validateCreate(ApiObject object) {
    var v = new Violations();
    CreateRules.check(object.metadata(), v);
    StatusOnCreate.check(object, v);
    var all = new java.util.ArrayList<>(validate(object));
    all.addAll(v.list());
    return List.copyOf(all);
  }

  public static void requireCreate(ApiObject object) {
    fail(object, validateCreate(object));
  }

  /**
   * The rules for a status write: the name, and the status fields other parts act on (names, text
   * without control characters, bounded sizes). The spec is not checked: a status writer sends back
   * the spec it read, and spec rules are the spec writer's business.
   */
  public static List<Violation> validateStatus(ApiObject object) {
    var v = new Violations();
    v.dnsLabel("metadata.name", object.metadata().name());
    switch (object) {
      case ResourceClaim c -> StatusRules.claim(c.status(), v);
      case Node n -> StatusRules.node(n.status(), v);
      case ComputeDomain d -> StatusRules.domain(d.status(), v);
      default -> {}
    }
    return v.list();
  }

  public static void requireStatus(ApiObject object) {
    fail(object, validateStatus(object));
  }

  private static void fail(ApiObject object, List<Violation> violations) {
    if (!violations.isEmpty()) {
      throw ApiException.invalid(object.ref(), violations);
    }
  }
}
