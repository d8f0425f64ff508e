package dev.quartermaster.api.workload;

/** The rule a refused change of a task's phase breaks; see {@link TaskTransitions#refusal}. */
public enum PhaseRule {
  /** Pending to Preparing, Running or Succeeded: nobody chose its node or reserved its claims. */
  SCHEDULED_FIRST(
      "a task runs only once scheduled (its node chosen and its claims reserved for it)"),
  /** Back to an earlier live phase: what the task did there cannot be undone. */
  NEVER_BACK("a task never goes back a phase (a new task of the same name starts over)"),
  /** From Succeeded or Failed to a live phase. */
  NEVER_AGAIN("a finished task never runs again"),
  /** From Succeeded to Failed or back. */
  OUTCOME_FINAL("a finished task's outcome is final");

  private final String text;

  PhaseRule(String text) {
    this.text = text;
  }

  public String text() {
    return text;
  }
}
