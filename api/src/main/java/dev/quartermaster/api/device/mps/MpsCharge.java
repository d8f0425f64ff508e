package dev.quartermaster.api.device.mps;

import java.util.Set;

/**
 * What MPS shares cost a queue's quota beyond their class's count: their compute in percent of a
 * GPU ({@link #COMPUTE_QUOTA}) and their memory caps in GiB ({@link #MEMORY_QUOTA}), summed over a
 * workload's replicas, so that a queue may limit a team's MPS use by share count, compute, GPU
 * memory, or any of them ({@code quota: {mps-memory-gib: 160}}).
 */
public final class MpsCharge {
  public static final String COMPUTE_QUOTA = "mps-compute-percent";
  public static final String MEMORY_QUOTA = "mps-memory-gib";

  /** The quota keys that name no device class. */
  public static final Set<String> QUOTAS = Set.of(COMPUTE_QUOTA, MEMORY_QUOTA);

  private MpsCharge() {}
}
