package dev.quartermaster.api.queue;

/**
 * Where a workload stands with its queue: admitted, waiting and why, or out of line altogether
 * ({@link QueueView}).
 */
public sealed interface Standing {
  /**
   * @param cohort the cohort whose ledger holds it
   * @param admission its ledger entry
   */
  record In(String cohort, Admitted admission) implements Standing {}

  /**
   * @param ahead how many pending workloads of its queue are taken before it ({@link QueueOrder})
   * @param why what it waits for, in a person's words ({@code quota gpu 16/16 used; cohort can lend
   *     0; 3 ahead of it})
   */
  record Waiting(int ahead, String why) implements Standing {}

  /**
   * Not in line and not admitted: nothing will admit it as it is (its job is over, it is being
   * deleted), so it has no position.
   *
   * @param state one word: {@code Finished}, {@code Deleting}
   * @param why in a person's words ({@code its job is over; its quota went back to the queue})
   */
  record Out(String state, String why) implements Standing {}
}
