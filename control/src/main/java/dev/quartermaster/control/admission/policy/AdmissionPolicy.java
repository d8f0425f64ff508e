package dev.quartermaster.control.admission.policy;

/**
 * The admission controller's scheduling policy: in what order it considers pending workloads, and
 * which admitted ones it evicts first. A new policy is a new implementation of either, not an
 * {@code if} inside a decision.
 */
public record AdmissionPolicy(AdmissionOrder order, VictimChoice victims) {
  /** Today's: fair share across queues, priority then age within one; the least work lost. */
  public static final AdmissionPolicy DEFAULT =
      new AdmissionPolicy(new FairShareOrder(), new LeastWorkLost());
}
