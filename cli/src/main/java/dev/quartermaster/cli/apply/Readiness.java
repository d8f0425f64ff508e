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
        yield current && running >= wanted
            ? new Ready()
            : new Waiting(running + "/" + wanted + " Running");
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
