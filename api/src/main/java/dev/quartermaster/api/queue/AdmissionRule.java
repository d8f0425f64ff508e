package dev.quartermaster.api.queue;

/**
 * The rule a refused move of an admission entry breaks; see {@link AdmissionTransitions#refusal}.
 */
public enum AdmissionRule {
  /** A workload not admitted (absent, or only nominated) evicted: it holds nothing to give back. */
  ADMITTED_FIRST("only an admitted workload is evicted"),
  /** An evicting entry admitted again, or its eviction changed: its tasks may still be running. */
  NEVER_TAKEN_BACK(
      "an eviction is never taken back or changed; the entry is released once its tasks have"
          + " stopped"),
  /** A started admission unmarked: its start timeout would apply again to a workload that ran. */
  STARTED_STAYS("an admission that started stays started while its entry stays"),
  /** A start timeout of an admission that started: it ran in time. */
  UNSTARTED_ONLY(
      "StartTimeout evicts only an admission that has not started, and names no preemptor");

  private final String text;

  AdmissionRule(String text) {
    this.text = text;
  }

  public String text() {
    return text;
  }

  /** The entry's field the rule is about: what a refusal names. */
  public String field() {
    return this == STARTED_STAYS ? "started" : "eviction";
  }
}
