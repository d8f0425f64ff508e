package dev.quartermaster.control.allocator;

import dev.quartermaster.api.allocation.DeviceHolder;
import dev.quartermaster.api.client.Write;
import dev.quartermaster.api.workload.Task;
import java.util.List;
import java.util.Optional;

/** What the live reads make of one decision of the index ({@link AllocationWrite#plan}). */
sealed interface WritePlan {

  /**
   * Write it: {@code writes} in one transaction. The first writes are the records of {@code
   * recordNodes} with their new entries, in that order (none: only claims are written, a
   * reservation resumed); {@code scheduledTasks}: the tasks the transaction also schedules.
   */
  record Commit(List<Write> writes, List<String> recordNodes, List<Task> scheduledTasks)
      implements WritePlan {
    public Commit {
      writes = List.copyOf(writes);
      recordNodes = List.copyOf(recordNodes);
      scheduledTasks = List.copyOf(scheduledTasks);
    }

    /** Whether a record gets new entries (else a reservation is being resumed). */
    boolean recordsNew() {
      return !recordNodes.isEmpty();
    }

    /** The one task a single decision schedules, if it does. */
    Optional<Task> scheduled() {
      return scheduledTasks.stream().findFirst();
    }
  }

  /**
   * The decision no longer holds (a claim changed, the node takes no allocations now): decide
   * again.
   */
  record Stale(String why) implements WritePlan {}

  /** {@code holder} holds a chosen device in the live record: the index was stale. Decide again. */
  record Taken(String device, DeviceHolder holder) implements WritePlan {}

  /**
   * A chosen device of {@code node} is named by a claim allocated before records existed, and the
   * node's record has not adopted those claims yet: wait for it to ({@link LegacyAdoption}).
   */
  record AwaitAdoption(String node) implements WritePlan {}
}
