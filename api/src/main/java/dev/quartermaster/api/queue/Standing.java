package dev.quartermaster.api.queue;

/** Where a workload stands with its queue: admitted, or waiting and why ({@link QueueView}). */
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
}
