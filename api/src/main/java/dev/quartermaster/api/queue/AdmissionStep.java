package dev.quartermaster.api.queue;

/**
 * Which step of the admission controller's pass moves an entry: each may make only its own moves of
 * {@link AdmissionTransitions}. (The controller is the ledger's one writer; the steps are what it
 * is made of, as the task phase's writers are.)
 */
public enum AdmissionStep {
  /** Carries the ledger over: releases what is gone, finished or evicted and stopped; shrinks. */
  CARRY_OVER("carrying the ledger over"),
  /** Admits a nominated workload once its victims' quota came back. */
  ADMIT_NOMINATED("admitting the nominated"),
  /** Admits pending workloads, fairest queue first (a grown one again whole). */
  ADMIT_BY_SHARE("admitting by share"),
  /** Chooses victims for a workload that does not fit, and nominates it. */
  PREEMPT("preempting"),
  /** Marks an admission started once its tasks ran, or evicts it when they did not in time. */
  START_TIMEOUT("the start timeout"),
  /** Evicts what a queue set to {@code overQuota: Evict} uses over what it may hold. */
  OVER_QUOTA("the over-quota eviction");

  private final String text;

  AdmissionStep(String text) {
    this.text = text;
  }

  /** The step in words, for a refusal. */
  public String text() {
    return text;
  }

  /** The step that evicts for {@code reason}. */
  public static AdmissionStep evicting(EvictionReason reason) {
    return switch (reason) {
      case Preempted, Reclaimed -> PREEMPT;
      case StartTimeout -> START_TIMEOUT;
      case OverQuota -> OVER_QUOTA;
    };
  }
}
