package dev.quartermaster.api.workload;

import java.util.List;
import java.util.Optional;

/**
 * @param groups the worker groups; each is kept at its replicas
 * @param computeDomain the compute domain every worker's claims join, if any
 */
public record WorkloadSpec(List<WorkerGroup> groups, Optional<String> computeDomain) {
  /**
   * In a workload with a compute domain, each task also has a claim {@code <task>-channels} for its
   * domain's IMEX channels on its node; no claim template may take that name.
   */
  public static final String CHANNEL_CLAIM = "channels";

  public static final WorkloadSpec EMPTY = new WorkloadSpec(List.of(), Optional.empty());

  public WorkloadSpec {
    groups = groups == null ? List.of() : List.copyOf(groups);
    computeDomain = computeDomain == null ? Optional.empty() : computeDomain;
  }
}
