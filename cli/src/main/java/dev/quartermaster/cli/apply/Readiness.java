package dev.quartermaster.cli.apply;

import dev.quartermaster.api.claim.ClaimConditions;
import dev.quartermaster.api.claim.ResourceClaim;
import dev.quartermaster.api.domain.ComputeDomain;
import dev.quartermaster.api.domain.DomainConditions;
import dev.quartermaster.api.meta.ApiObject;
import dev.quartermaster.api.meta.Condition;
import dev.quartermaster.api.volume.Volume;
import dev.quartermaster.api.volume.VolumePhase;
import dev.quartermaster.api.workload.Task;
import dev.quartermaster.api.workload.Workload;
import dev.quartermaster.api.workload.WorkloadConditions;

/**
 * Whether an applied object has reached what {@code qm apply --wait} waits for: a workload every
 * replica Running, a task Running (or done), a claim allocated, a volume available, a domain Ready.
 * Kinds with nothing to reach (classes, nodes, slices) are ready once stored.
 */
public sealed interface Readiness {
  record Ready() implements Readiness {}

  /**
   * Not yet; {@code state} says how far ({@code 3/5 Running}) and why, as the object's status does.
   */
  record Waiting(String state) implements Readiness {}

  /** It cannot get there by waiting: a task that failed. */
  record Failed(String why) implements Readiness {}

  /**
   * It cannot get there until someone changes the cluster: a workload whose device class, queue or
   * priority class does not exist, or whose tasks the store refuses.
   */
  record Stuck(String why) implements Readiness {}

  /**
   * The reasons a workload waits for that only a change of the cluster by someone can end (a class,
   * queue or priority class created, a spec fixed, a name freed): {@code --wait} stops at once.
   */
  java.util.Set<String> STUCK =
      java.util.Set.of(
          WorkloadConditions.NO_SUCH_DEVICE_CLASS,
          WorkloadConditions.NO_SUCH_QUEUE,
          WorkloadConditions.NO_SUCH_PRIORITY_CLASS,
          WorkloadConditions.INVALID,
          WorkloadConditions.NAME_TAKEN);

  private static String said(Condition c) {
    return c.type() + "=False " + c.reason() + (c.message().isEmpty() ? "" : ": " + c.message());
  }

  static Readiness of(ApiObject object) {
    return switch (object) {
      case Workload w -> {
        int wanted = w.spec().groups().stream().mapToInt(g -> g.replicas()).sum();
        int running = w.status().groups().stream().mapToInt(g -> g.running()).sum();
        boolean current =
            w.status().groups().size() == w.spec().groups().size()
                && w.status().groups().stream()
                    .allMatch(
                        g ->
                            w.spec().groups().stream()
                                .anyMatch(
                                    s ->
                                        s.name().equals(g.name()) && s.replicas() == g.replicas()));
        if (current && running >= wanted) {
          yield new Ready();
        }
        var stuck =
            w.status().conditions().stream()
                .filter(c -> c.status() == Condition.Status.False && STUCK.contains(c.reason()))
                .findFirst();
        if (stuck.isPresent()) {
          yield new Stuck(running + "/" + wanted + " Running, " + said(stuck.get()));
        }
        var why =
            w.status().conditions().stream()
                .filter(c -> c.status() == Condition.Status.False && !c.reason().isEmpty())
                .findFirst();
        yield new Waiting(
            running + "/" + wanted + " Running" + why.map(c -> ", " + said(c)).orElse(""));
      }
      case Task t ->
          switch (t.status().phase()) {
            case Running, Succeeded -> new Ready();
            case Failed -> new Failed(t.status().reason() + ": " + t.status().message());
            default ->
                new Waiting(
                    t.status().phase()
                        + (t.status().reason().isEmpty() ? "" : " " + t.status().reason())
                        + (t.status().message().isEmpty() ? "" : ": " + t.status().message()));
          };
      case ResourceClaim c ->
          c.status().allocation().isPresent()
              ? new Ready()
              : new Waiting(
                  "not allocated"
                      + Condition.find(c.status().conditions(), ClaimConditions.ALLOCATED)
                          .map(x -> ": " + x.message())
                          .orElse(""));
      case Volume v ->
          v.status().phase() == VolumePhase.Available
              ? new Ready()
              : new Waiting(v.status().phase().name());
      case ComputeDomain d ->
          Condition.find(d.status().conditions(), DomainConditions.READY)
                  .filter(Condition::isTrue)
                  .isPresent()
              ? new Ready()
              : new Waiting(d.status().readyNodes() + "/" + d.spec().numNodes() + " nodes ready");
      default -> new Ready();
    };
  }
}
