package dev.quartermaster.agent.prepare;

/**
 * What {@link ClaimPreparer} tells about each prepare and unprepare. The implementation reads the
 * clock, not the preparer: the agent's logic stays clock-free, and the agent module free of any
 * metrics library. {@link #NONE} records nothing: a standalone agent and the simulation keep it.
 */
@FunctionalInterface
public interface PrepareMetrics {
  PrepareMetrics NONE = operation -> outcome -> {};

  /** A prepare or unprepare starts; end the returned span when it has an outcome. */
  Span begin(Operation operation);

  enum Operation {
    PREPARE,
    UNPREPARE
  }

  /** One call in progress. */
  @FunctionalInterface
  interface Span {
    /**
     * @param outcome {@code prepared}, {@code waiting}, {@code refused}, {@code failed} or {@code
     *     unprepared}; {@code error} when the ledger could not be written
     */
    void end(String outcome);
  }
}
